// Talks to the core in Web Workers: one for evaluate() (what typing waits for; it also
// sends the curve and top layouts right after each answer, from the search it keeps),
// one for the curve/layout search when that cannot follow an answer (a calibration that
// fits knobs, the embed, no core search()), so a long search never delays an answer.
// Each channel keeps at most one request in flight and one waiting; a newer request
// replaces the waiting one (its promise resolves {superseded: true}).
// Without module workers it falls back to the core on the main thread.
// The wasm is compiled once, by boot.js on the page; every worker gets the compiled
// WebAssembly.Module in its first message ({type: "init"}) and only instantiates it.

// A worker that compiled the wasm itself (no shared module) counts in
// root.dataset.wasmCompiles beside boot.js's own compile (scripts/bench-page.mjs reads it).
function countCompile() {
  const root = document.documentElement;
  root.dataset.wasmCompiles = String(Number(root.dataset.wasmCompiles || 0) + 1);
}

class Channel {
  // adopt: {worker, early} from boot.js, a worker started before the modules loaded
  // (boot.js sends it the module); module: a promise of the compiled core or null.
  constructor(name, module, adopt = null) {
    this.name = name;
    this.module = module;
    this.seq = 0;
    this.busy = null;
    this.pending = null;
    this.info = null;
    this.following = new Map(); // request id -> resolves its "explore" (worker.js)
    this.ready = this.spawn(adopt);
  }

  spawn(adopt = null) {
    return new Promise((resolve, reject) => {
      let worker = adopt?.worker;
      if (!worker) {
        try {
          worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: this.name });
        } catch (error) {
          reject(error);
          return;
        }
        this.module.then((module) => worker.postMessage({ type: "init", module }));
      }
      this.worker = worker;
      worker.onmessage = (event) => {
        const data = event.data ?? {};
        if (data.type === "ready") {
          if (data.compiled) countCompile();
          this.info = data;
          if (data.warm?.explore) this.warmExplore = { text: data.warm.text, reply: new Promise((done) => (this.warmExploreDone = done)) };
          resolve(data);
          this.flush();
        } else if (data.type === "warm-explore") {
          this.warmExploreDone?.(data);
        } else if (data.type === "fatal") {
          reject(new Error(data.message));
        } else if (data.type === "explore") {
          this.following.get(data.id)?.({ envelope: data.envelope, ms: data.ms });
          this.following.delete(data.id);
        } else if (this.busy && data.id === this.busy.id) {
          const done = this.busy;
          this.busy = null;
          // explore: a promise of the curve and top layouts, which came with the answer or
          // which the worker sends next (worker.js TOGETHER_MS).
          let explore = null;
          if (data.explore === "follows") explore = new Promise((take) => this.following.set(data.id, take));
          else if (data.explore) explore = Promise.resolve({ envelope: data.explore.envelope, ms: data.explore.ms });
          done.resolve({ envelope: data.envelope, ms: data.ms, explore });
          this.flush();
          this.notify();
        }
      };
      worker.onerror = (event) => {
        event.preventDefault?.();
        reject(new Error(event.message || "worker failed to start"));
      };
      for (const event of adopt?.early?.splice(0) ?? []) {
        if (event.type === "error") worker.onerror(event);
        else worker.onmessage(event);
      }
    });
  }

  request(message) {
    return new Promise((resolve) => {
      this.pending?.resolve({ superseded: true });
      this.pending = { message, resolve };
      this.flush();
      this.notify();
    });
  }

  // Whether work is queued or running on this channel (progress.js shows it).
  get working() {
    return Boolean(this.busy || this.pending);
  }

  // (name, working, whether the work brings the curve and top layouts too)
  notify() {
    const explore = Boolean(this.busy?.message.explore || this.pending?.message.explore);
    this.onActivity?.(this.name, this.working, explore);
  }

  flush() {
    if (this.busy || !this.pending || !this.info) return;
    const next = this.pending;
    this.pending = null;
    next.id = ++this.seq;
    next.started = performance.now();
    this.busy = next;
    this.worker.postMessage({ ...next.message, id: next.id });
  }

  // A stale request running longer than `ms` is abandoned: the worker is replaced.
  restartIfStale(ms) {
    if (!(this.busy && this.pending && performance.now() - this.busy.started > ms)) return;
    this.worker.terminate();
    for (const take of this.following.values()) take({ envelope: null });
    this.following.clear();
    this.busy.resolve({ superseded: true });
    this.busy = null;
    this.info = null;
    this.ready = this.spawn().catch(() => {});
    this.notify();
  }
}

class MainThread {
  constructor(module) {
    this.ready = (async () => {
      const api = await import("./gpucalc-api.js");
      const explore = await import("./explore.js");
      const core = await api.loadCore(await module);
      this.core = core;
      this.sweep = explore.sweep;
      return { version: core.version(), search: typeof core.search === "function", mainThread: true };
    })();
  }

  async request({ op, scenario, hint }) {
    await this.ready;
    const t0 = performance.now();
    let envelope;
    if (op === "evaluate") envelope = JSON.parse(this.core.evaluate(scenario));
    else if (op === "compare") envelope = JSON.parse(this.core.compare(scenario, hint.ids));
    else if (typeof this.core.search === "function") {
      envelope = JSON.parse(this.core.search(scenario));
      if (envelope.ok) envelope.value.source = "search";
    } else envelope = this.sweep((s) => JSON.parse(this.core.evaluate(JSON.stringify(s))), JSON.parse(scenario), hint);
    return { envelope, ms: performance.now() - t0 };
  }

  restartIfStale() {}
}

export class Engine {
  constructor() {
    this.fast = null;
    this.slow = null;
    this.cmp = null;
    this.module = Promise.resolve(null);
    // (channel name, working, with the curve) on every change: "gpucalc-evaluate",
    // "gpucalc-search", "gpucalc-compare" (progress.js).
    this.onActivity = null;
  }

  channel(name) {
    const c = new Channel(name, this.module);
    c.onActivity = (...args) => this.onActivity?.(...args);
    return c;
  }

  // Resolves {version, search, mainThread?} once the core answers.
  async start() {
    const boot = globalThis.__gpucalcBoot;
    globalThis.__gpucalcBoot = undefined;
    if (boot?.module) this.module = boot.module;
    if (typeof Worker === "function") {
      try {
        this.fast = new Channel("gpucalc-evaluate", this.module, boot?.worker ? boot : null);
        this.fast.onActivity = (...args) => this.onActivity?.(...args);
        return await this.fast.ready;
      } catch {
        this.fast?.worker?.terminate();
      }
    }
    this.fast = new MainThread(this.module);
    this.slow = this.fast;
    return this.fast.ready;
  }

  // The answering worker's answer to the default scenario, searched while the page loaded
  // (boot.js "warm"): {envelope, ms} once, when `scenarioText` is exactly that text.
  takeWarm(scenarioText) {
    const warm = this.fast?.info?.warm;
    if (!warm || warm.text !== scenarioText) return null;
    this.fast.info.warm = null;
    return { envelope: JSON.parse(warm.envelope), ms: warm.ms };
  }

  // withExplore: the worker sends the curve and top layouts right after the answer when it
  // can give them cheaply; the result's `explore` is then a promise of {envelope | null, ms}
  // (null: ask explore()), else null (worker.js exploreFollows).
  evaluate(scenarioText, { withExplore = false } = {}) {
    return this.fast.request({ op: "evaluate", scenario: scenarioText, explore: withExplore });
  }

  explore(scenarioText, hint) {
    // The default scenario's curve, which the answering worker sends after its warm answer
    // (worker.js "warm-explore"): taken once, for that very text.
    const warm = this.fast?.warmExplore;
    if (warm && warm.text === scenarioText) {
      this.fast.warmExplore = null;
      return warm.reply.then((data) => (data.envelope ? { envelope: data.envelope, ms: data.ms } : this.explore(scenarioText, hint)));
    }
    if (!this.slow) {
      try {
        this.slow = this.channel("gpucalc-search");
        this.slow.ready.catch(() => {});
      } catch {
        this.slow = this.fast;
      }
    }
    this.slow.restartIfStale(1500);
    return this.slow.request({ op: "explore", scenario: scenarioText, hint });
  }

  // The same job on several accelerators (compare.js), in a worker of its own so neither
  // the answer nor the search ever waits for it.
  compare(scenarioText, ids) {
    if (!this.cmp) {
      try {
        this.cmp = this.channel("gpucalc-compare");
        this.cmp.ready.catch(() => {});
      } catch {
        this.cmp = this.fast;
      }
    }
    this.cmp.restartIfStale?.(3000);
    return this.cmp.request({ op: "compare", scenario: scenarioText, hint: { ids } });
  }
}
