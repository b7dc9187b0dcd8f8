#!/usr/bin/env python3
"""Regenerates data/frameworks/*.json: each training framework's option names (and types),
read from the framework's own source with Python's ast module (nothing is imported).

  python3 scripts/framework-options.py FRAMEWORK GIT_DIR [COMMIT] > data/frameworks/FRAMEWORK.json

FRAMEWORK is megatron, torchtitan, deepspeed or llamafactory; GIT_DIR a clone of
  megatron      https://github.com/NVIDIA/Megatron-LM       megatron/training/arguments.py
                (literal add_argument flags, plus the dataclass fields its
                ArgumentGroupFactory turns into flags: megatron/training/argument_utils.py)
  torchtitan    https://github.com/pytorch/torchtitan       torchtitan/config/job_config.py
                (TOML sections and keys; the last commit before the Python-config refactor)
  deepspeed     https://github.com/deepspeedai/DeepSpeed    deepspeed/runtime/config.py,
                constants.py, precision_config.py, zero/config.py, zero/offload_config.py
  llamafactory  https://github.com/hiyouga/LLaMA-Factory    src/llamafactory/hparams/*.py
                (plus the Transformers TrainingArguments fields listed in HF_TRAINING_ARGS)
The export tests (tests/core/launch_export_test.cpp) check every emitted name against these lists.
"""
import ast
import json
import re
import subprocess
import sys


def git(gitdir, *args):
    return subprocess.run(["git", "-C", gitdir, *args], check=True, capture_output=True, text=True).stdout


def show(gitdir, commit, path):
    return git(gitdir, "show", f"{commit}:{path}")


def ann_type(node):
    """A short type name from an annotation: int, float, bool, str, list, dict, enum, object."""
    text = ast.unparse(node) if node is not None else "object"
    text = re.sub(r"Annotated\[(.*?),.*\]$", r"\1", text)
    for t in ("bool", "int", "float", "str"):
        if re.fullmatch(rf"(Optional\[)?{t}\]?( \| None)?", text):
            return t
    if text.startswith(("list", "List", "Optional[list", "Optional[List")):
        return "list"
    if text.startswith("Literal"):
        return "choice"
    if "dict" in text or "Dict" in text:
        return "dict"
    return "object"


def class_fields(tree, name):
    """(field, annotation node, default node, Field/field() call) of a class's own annotated fields."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            out = []
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    out.append((st.target.id, st.annotation, st.value))
            bases = [ast.unparse(b) for b in node.bases]
            return out, bases
    raise KeyError(name)


def call_kw(call, key):
    if isinstance(call, ast.Call):
        for kw in call.keywords:
            if kw.arg == key:
                return kw.value
    return None


def field_default(value):
    """The literal default of `x: T = v` or `x: T = field(default=v)`, else None."""
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("field", "dataclasses.field", "Field"):
        d = call_kw(value, "default")
        if d is None and value.args:
            d = value.args[0]
        value = d
    if isinstance(value, ast.Constant):
        return value.value
    return None


# ---------------------------------------------------------------- Megatron-LM
MEGATRON_CLASS_FILES = {
    "TransformerConfig": "megatron/core/transformer/transformer_config.py",
    "ModelParallelConfig": "megatron/core/model_parallel_config.py",
    "FaultInjectorConfig": "megatron/core/fault_injector.py",
}
for _c in ("RNGConfig", "ProfilingConfig", "DistributedInitConfig"):
    MEGATRON_CLASS_FILES[_c] = "megatron/training/config/common_config.py"
for _c in ("RerunStateMachineConfig", "StragglerDetectionConfig"):
    MEGATRON_CLASS_FILES[_c] = "megatron/training/config/resilience_config.py"
for _c in ("TrainingConfig", "ValidationConfig", "SchedulerConfig", "LoggerConfig", "CheckpointConfig",
           "TokenizerConfig"):
    MEGATRON_CLASS_FILES[_c] = "megatron/training/config/training_config.py"


def megatron_flags_of_class(gitdir, commit, cls, exclude, opts):
    tree = ast.parse(show(gitdir, commit, MEGATRON_CLASS_FILES[cls]))
    fields, bases = class_fields(tree, cls)
    for base in bases:
        if base in MEGATRON_CLASS_FILES:
            megatron_flags_of_class(gitdir, commit, base, exclude, opts)
    for name, ann, value in fields:
        if name in exclude or (isinstance(value, ast.Call) and ast.unparse(call_kw(value, "init") or ast.Constant(True)) == "False"):
            continue
        meta = call_kw(value, "metadata")
        names = None
        if isinstance(meta, ast.Dict):
            for k, v in zip(meta.keys, meta.values):
                if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
                    for k2, v2 in zip(v.keys, v.values):
                        if isinstance(k2, ast.Constant) and k2.value == "arg_names":
                            names = [e.value for e in v2.elts]
        t = ann_type(ann)
        if names is None:
            names = ["--" + name.replace("_", "-")]
            if t == "bool" and field_default(value) is True:
                names = ["--no-" + name.replace("_", "-"), "--disable-" + name.replace("_", "-")]
        for n in names:
            opts[n] = "flag" if t == "bool" else t


def megatron(gitdir, commit):
    path = "megatron/training/arguments.py"
    src = show(gitdir, commit, path)
    tree = ast.parse(src)
    opts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            t = call_kw(node, "type")
            action = call_kw(node, "action")
            kind = "flag" if isinstance(action, ast.Constant) and action.value in ("store_true", "store_false") \
                else (ast.unparse(t) if t is not None else "str")
            if call_kw(node, "nargs") is not None:
                kind = "list"
            for a in node.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                    opts[a.value] = kind if kind in ("int", "float", "str", "flag", "list") else "str"
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "ArgumentGroupFactory":
            cls = ast.unparse(node.args[0])
            ex = call_kw(node, "exclude")
            exclude = set()
            if isinstance(ex, ast.List):
                exclude = {e.value for e in ex.elts}
            elif isinstance(ex, ast.Name):  # exclude=exclude: the list assigned just before
                for st in ast.walk(tree):
                    if isinstance(st, ast.Assign) and any(isinstance(tg, ast.Name) and tg.id == ex.id for tg in st.targets) \
                            and isinstance(st.value, ast.List) and st.lineno < node.lineno:
                        exclude = {e.value for e in st.value.elts if isinstance(e, ast.Constant)}
            megatron_flags_of_class(gitdir, commit, cls, exclude, opts)
    return "Megatron-LM", "https://github.com/NVIDIA/Megatron-LM", [path, "megatron/training/argument_utils.py"] + \
        sorted(set(MEGATRON_CLASS_FILES.values())), dict(sorted(opts.items()))


# ---------------------------------------------------------------- torchtitan
def torchtitan(gitdir, commit):
    path = "torchtitan/config/job_config.py"
    tree = ast.parse(show(gitdir, commit, path))
    classes = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    opts = {}

    def walk(cls, prefix):
        for st in classes[cls].body:
            if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                continue
            ann = ast.unparse(st.annotation)
            if ann in classes:
                walk(ann, prefix + st.target.id + ".")
            else:
                opts[prefix + st.target.id] = ann_type(st.annotation)

    walk("JobConfig", "")
    return "torchtitan", "https://github.com/pytorch/torchtitan", [path], dict(sorted(opts.items()))


# ---------------------------------------------------------------- DeepSpeed
def constants(src):
    out = {}
    for st in ast.parse(src).body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            out[st.targets[0].id] = st.value.value
    return out


def pydantic_fields(tree, cls, prefix, opts):
    fields, _ = class_fields(tree, cls)
    for name, ann, value in fields:
        alias = call_kw(value, "alias")
        key = alias.value if isinstance(alias, ast.Constant) else name
        opts[prefix + key] = ann_type(ann)


def deepspeed(gitdir, commit):
    paths = ["deepspeed/runtime/config.py", "deepspeed/runtime/constants.py", "deepspeed/runtime/precision_config.py",
             "deepspeed/runtime/zero/config.py", "deepspeed/runtime/zero/offload_config.py"]
    consts = constants(show(gitdir, commit, paths[1]))
    consts.update(constants(show(gitdir, commit, paths[2])))
    opts = {}
    config_src = show(gitdir, commit, paths[0])
    # Top-level keys: every constant config.py reads straight from the config dict
    # (param_dict[X], param_dict.get(X, ...), get_scalar_param(param_dict, X, ...), X in param_dict).
    pat = r"param_dict(?:\[|\.get\(|\s*,\s*)\s*([A-Z][A-Z0-9_]+)\b|\b([A-Z][A-Z0-9_]+) in param_dict(?![\[\w.])"
    for m in re.finditer(pat, config_src):
        name = m.group(1) or m.group(2)
        if name in consts:
            opts[consts[name]] = "object"
    # bf16 / fp16 / zero_optimization: the pydantic models config.py builds from those sections
    # (precision_config.py get_bfloat16_config / get_float16_config, zero/config.py get_zero_config).
    ptree = ast.parse(show(gitdir, commit, paths[2]))
    for key, cls in (("bf16", "DeepSpeedBF16Config"), ("fp16", "DeepSpeedFP16Config")):
        opts[key] = "dict"
        pydantic_fields(ptree, cls, key + ".", opts)
    opts["zero_optimization"] = "dict"
    ztree = ast.parse(show(gitdir, commit, paths[3]))
    pydantic_fields(ztree, "DeepSpeedZeroConfig", "zero_optimization.", opts)
    otree = ast.parse(show(gitdir, commit, paths[4]))
    pydantic_fields(otree, "DeepSpeedZeroOffloadOptimizerConfig", "zero_optimization.offload_optimizer.", opts)
    pydantic_fields(otree, "DeepSpeedZeroOffloadParamConfig", "zero_optimization.offload_param.", opts)
    # optimizer: {"type": ..., "params": {...}} (config.py get_optimizer_name / get_optimizer_params).
    opts["optimizer.type"] = "str"
    opts["optimizer.params"] = "dict"
    return "DeepSpeed", "https://github.com/deepspeedai/DeepSpeed", paths, dict(sorted(opts.items()))


# ---------------------------------------------------------------- LLaMA-Factory
# Transformers TrainingArguments fields the LLaMA-Factory export writes (LLaMA-Factory's
# TrainingArguments extends transformers.Seq2SeqTrainingArguments), read from
# huggingface/transformers src/transformers/training_args.py at HF_COMMIT.
HF_COMMIT = "00349ae87eddc872ffa21a8a54f264375a0056a8"
HF_TRAINING_ARGS = {
    "output_dir": "str", "per_device_train_batch_size": "int", "gradient_accumulation_steps": "int",
    "num_train_epochs": "float", "max_steps": "int", "learning_rate": "float", "lr_scheduler_type": "str",
    "warmup_steps": "float", "optim": "str", "weight_decay": "float", "max_grad_norm": "float", "bf16": "bool",
    "fp16": "bool", "gradient_checkpointing": "bool", "logging_steps": "float", "save_steps": "float",
    "deepspeed": "dict", "do_train": "bool", "seed": "int", "report_to": "str",
}


def llamafactory(gitdir, commit):
    files = [p for p in git(gitdir, "ls-tree", "--name-only", commit, "src/llamafactory/hparams/").split()
             if p.endswith(".py")]
    opts = {}
    for path in files:
        tree = ast.parse(show(gitdir, commit, path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                for st in node.body:
                    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                        opts[st.target.id] = ann_type(st.annotation)
    for k, v in HF_TRAINING_ARGS.items():
        opts.setdefault(k, v)
    return "LLaMA-Factory", "https://github.com/hiyouga/LLaMA-Factory", files, dict(sorted(opts.items()))


def main():
    which, gitdir = sys.argv[1], sys.argv[2]
    commit = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
    name, repo, paths, opts = {"megatron": megatron, "torchtitan": torchtitan, "deepspeed": deepspeed,
                               "llamafactory": llamafactory}[which](gitdir, commit)
    sha, date = git(gitdir, "log", "-1", "--format=%H %cI", commit).split()
    doc = {
        "framework": name,
        "source": {"repository": repo, "commit": sha, "date": date, "paths": paths},
        "generated_by": "scripts/framework-options.py " + which,
        "options": opts,
    }
    if which == "llamafactory":
        doc["source"]["also"] = {
            "repository": "https://github.com/huggingface/transformers", "commit": HF_COMMIT,
            "path": "src/transformers/training_args.py",
            "fields": sorted(HF_TRAINING_ARGS),
        }
    if which == "torchtitan":
        doc["source"]["note"] = ("The last commit whose runs are configured by TOML files (--job.config_file); "
                                 "the next, 9810191bb, moved configuration to Python functions and keeps the same "
                                 "names as --section.option flags.")
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
