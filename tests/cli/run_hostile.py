#!/usr/bin/env python3
"""Runs the gpucalc CLI on every row of tests/cli/hostile_inputs.txt (see its header).

Each row goes through `gpucalc evaluate FILE` and `gpucalc search -` (standard input):
both must exit 2 within the time limit, print "gpucalc: PATH: MESSAGE" on stderr, and stay
under the memory limit (the child's peak RSS, from wait4). Usage:

    run_hostile.py --cli build/native/cli/gpucalc [--table tests/cli/hostile_inputs.txt]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build(pieces):
    out = bytearray()
    for p in pieces:
        if isinstance(p, str):
            out += p.encode("utf-8")
        elif isinstance(p, list):
            out += p[0].encode("utf-8") * p[1]
        elif "hex" in p:
            out += bytes.fromhex(p["hex"])
        else:
            x, n = p["random"]
            buf = bytearray(n)
            for i in range(n):
                x ^= (x << 13) & 0xFFFFFFFF
                x ^= x >> 17
                x ^= (x << 5) & 0xFFFFFFFF
                buf[i] = x & 255
            out += buf
    return bytes(out)


def read_table(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, want_path, message, pieces = line.split("\t", 3)
            rows.append((name, "" if want_path == "-" else want_path, message, build(json.loads(pieces))))
    return rows


def run(cmd, stdin_bytes, timeout):
    """Runs cmd; returns (exit status, stderr text, seconds, peak RSS in MiB)."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin_bytes is not None:
            inp.write(stdin_bytes)
            inp.seek(0)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=inp, stdout=subprocess.DEVNULL, stderr=err)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return proc.returncode, err.read().decode("utf-8", "replace"), seconds, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--table", default=os.path.join(ROOT, "tests/cli/hostile_inputs.txt"))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run (generous for sanitizer builds)")
    ap.add_argument("--max-rss-mib", type=float, default=1024.0)
    args = ap.parse_args()
    rows = read_table(args.table)
    if len(rows) < 40:
        sys.exit(f"only {len(rows)} rows in {args.table}")
    bad = 0
    slowest = (0.0, "")
    biggest = (0.0, "")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, want_path, message, doc) in enumerate(rows):
            file = os.path.join(tmp, f"hostile_{i}.json")
            with open(file, "wb") as f:
                f.write(doc)
            prefix = want_path.endswith("*")
            shown = want_path.rstrip("*") or "(scenario)"
            for how, cmd, stdin in (("evaluate FILE", [args.cli, "evaluate", file], None),
                                    ("search -", [args.cli, "search", "-"], doc)):
                status, err, seconds, rss = run(cmd, stdin, args.timeout)
                slowest = max(slowest, (seconds, f"{name} ({how})"))
                biggest = max(biggest, (rss, f"{name} ({how})"))
                head = f"gpucalc: {shown}" if prefix else f"gpucalc: {shown}: "
                problems = []
                if status != 2:
                    problems.append(f"exit {status}, want 2")
                if not err.startswith(head):
                    problems.append(f"stderr does not start with {head!r}")
                if message not in err:
                    problems.append(f"stderr lacks {message!r}")
                if seconds > args.timeout:
                    problems.append(f"took {seconds:.1f} s")
                if rss > args.max_rss_mib:
                    problems.append(f"peak RSS {rss:.0f} MiB")
                if problems:
                    bad += 1
                    print(f"FAIL {name} ({how}, {len(doc)} bytes): {'; '.join(problems)}\n  stderr: {err[:300]!r}")
    runs = 2 * len(rows)
    print(f"{len(rows)} hostile inputs, {runs} runs, {bad} wrong; slowest {slowest[0]:.2f} s ({slowest[1]}), "
          f"largest peak RSS {biggest[0]:.0f} MiB ({biggest[1]})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
