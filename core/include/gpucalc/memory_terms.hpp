// The memory terms of one GPU as named functions, each returning its bytes, its formula
// with this layout's numbers and its source: what the answer's memory.items lists
// (docs/memory-model.md). The bytes are the stage's (memory.hpp StageMemory); the text
// says how they were obtained, in parts the page renders in its language (message.hpp
// Parts: symbols and citations as they are, prose coded in data/messages.json).
#pragma once
#include <string>
#include <vector>

#include "gpucalc/memory.hpp"
#include "gpucalc/message.hpp"

namespace gpucalc {

struct MemoryTerm {
  const char* name;      // weights, gradients, …: stable keys of memory.items
  const char* category;  // weights, gradients, optimizer, activations, host, other
  double bytes = 0;
  Parts formula;   // concatenated
  Message source;  // a citation (literal) or coded prose
};

// What one term needs: the model, the job, the layout, the overheads and the stage.
struct TermInputs {
  const ModelShape& model;
  const Training& training;
  const Layout& layout;
  const Overheads& overheads;
  const StageMemory& stage;
};

MemoryTerm weights_term(const TermInputs& x);
MemoryTerm gathered_weights_term(const TermInputs& x);  // ZeRO-3 working set, or QLoRA's dequantised weight
MemoryTerm fp8_weight_cache_term(const TermInputs& x);
MemoryTerm gradients_term(const TermInputs& x);
MemoryTerm optimizer_term(const TermInputs& x);
MemoryTerm layer_activations_term(const TermInputs& x);
MemoryTerm recompute_working_term(const TermInputs& x);
MemoryTerm output_and_loss_term(const TermInputs& x);
MemoryTerm host_term(const TermInputs& x);
MemoryTerm cuda_context_term(const TermInputs& x);
MemoryTerm nccl_term(const TermInputs& x);
MemoryTerm fragmentation_term(const TermInputs& x);

// The terms the answer lists, in its order: the always-present ones and those with bytes.
std::vector<MemoryTerm> memory_terms(const TermInputs& x);

}  // namespace gpucalc
