// A model shape for "I only know the parameter count": a Llama-3-style dense
// decoder (SwiGLU, GQA with 8 KV heads of 128, RMSNorm, RoPE, 128,256-token
// vocabulary, untied head) whose width/depth ratio follows the Llama 3 family
// (8B: 4096 × 32, 70B: 8192 × 80, 405B: 16384 × 126; hidden ≈ 100-130 × layers).
// The page shows the shape it picked; the core then counts it exactly.

const VOCAB = 128256;
const HEAD_DIM = 128;

function paramsOf({ layers, hidden, heads, kv_heads, ffn_hidden, vocab }) {
  const kv = kv_heads * HEAD_DIM;
  const attn = 2 * hidden * hidden + 2 * hidden * kv;
  const mlp = 3 * hidden * ffn_hidden;
  return layers * (attn + mlp + 2 * hidden) + 2 * vocab * hidden + hidden;
}

export function shapeForParams(target) {
  if (!(target > 0) || !Number.isFinite(target)) return null;
  let best = null;
  for (let hidden = 512; hidden <= 32768; hidden += hidden < 2048 ? 512 : 1024) {
    const heads = hidden / HEAD_DIM;
    const kv_heads = heads % 8 === 0 ? 8 : heads % 4 === 0 ? 4 : 2;
    const ffn_hidden = Math.max(256, Math.round((3.5 * hidden) / 256) * 256);
    const perLayer = paramsOf({ layers: 1, hidden, heads, kv_heads, ffn_hidden, vocab: 0 }) - hidden;
    const layers = Math.round((target - 2 * VOCAB * hidden - hidden) / perLayer);
    if (layers < 2 || layers > 512) continue;
    const shape = { layers, hidden, heads, kv_heads, ffn_hidden, vocab: VOCAB };
    const ratio = hidden / layers;
    const error = Math.abs(paramsOf(shape) - target) / target;
    // Prefer the Llama-like aspect ratio; among those, the closest count.
    const score = Math.abs(Math.log(ratio / 110)) + 20 * error;
    if (!best || score < best.score) best = { score, shape };
  }
  return best?.shape ?? null;
}

export const estimateParams = paramsOf;
