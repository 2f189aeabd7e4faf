#!/usr/bin/env python3
"""Runs a command and prints "WALL_MS CPU_MS PEAK_RSS_MIB EXIT" of its whole
process tree: wall time; CPU (user + sys) of every process of the tree that
was waited for (resource.RUSAGE_CHILDREN), or the tree's own sum read from
/proc when that is more (a worker reaped by init escapes RUSAGE_CHILDREN);
and the peak of the sum of the tree's resident sets, sampled every 20 ms.
/usr/bin/time's %M is the largest single process, which undercounts the
peers that fork workers (distilabel, datatrove). Usage:
  treemeasure.py [--timeout S] [--stdout FILE] -- CMD ARGS..."""
import os
import resource
import signal
import subprocess
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                s = f.read()
        except OSError:
            continue
        # the name is in parentheses and may hold spaces: split after it
        rest = s[s.rfind(b")") + 2:].split()
        kids.setdefault(int(rest[1]), []).append((int(d), rest))
    return kids


def tree(root):
    """[(pid, rss_bytes, cpu_ticks)] of root and its descendants."""
    kids = children_map()
    out, todo = [], [root]
    try:
        with open(f"/proc/{root}/stat", "rb") as f:
            s = f.read()
        rest = s[s.rfind(b")") + 2:].split()
        out.append((root, int(rest[21]) * PAGE, int(rest[11]) + int(rest[12])))
    except OSError:
        pass
    while todo:
        p = todo.pop()
        for c, rest in kids.get(p, []):
            out.append((c, int(rest[21]) * PAGE, int(rest[11]) + int(rest[12])))
            todo.append(c)
    return out


def main():
    args = sys.argv[1:]
    timeout, stdout = None, subprocess.DEVNULL
    while args and args[0] != "--":
        if args[0] == "--timeout":
            timeout = float(args[1])
            args = args[2:]
        elif args[0] == "--stdout":
            stdout = open(args[1], "wb")
            args = args[2:]
        else:
            sys.exit(f"treemeasure: unknown option {args[0]}")
    cmd = args[1:]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout, start_new_session=True)
    peak, cpu_seen = 0, {}
    code = None
    while code is None:
        t = tree(p.pid)
        peak = max(peak, sum(r for _, r, _ in t))
        for pid, _, c in t:
            cpu_seen[pid] = max(cpu_seen.get(pid, 0), c)
        if timeout and time.monotonic() - t0 > timeout:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            code = "timeout"
            break
        time.sleep(0.02)
        code = p.poll()
    wall = (time.monotonic() - t0) * 1000
    # whatever the tree left behind in its session
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = max((ru.ru_utime + ru.ru_stime) * 1000, sum(cpu_seen.values()) * 1000 / TICK)
    print(f"{wall:.0f} {cpu:.0f} {peak / 1048576:.1f} {code}")


main()
