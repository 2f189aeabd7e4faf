#!/usr/bin/env python3
"""The near-duplicate peer of bench-peers.sh: datatrove's MinHash
deduplication, its four stages as its own example runs them (signatures,
buckets, clusters, filter) on local files, and the cluster files that
scripts/dedupeval scores.

  dedup.py datatrove TEXTS.jsonl WORK BANDS ROWS NGRAMS CLUSTERS.tsv
  dedup.py ngkit ERRORS.jsonl CLUSTERS.tsv   ngcat --dedup near's dropped records

TEXTS.jsonl holds {"id", "text"} lines (the text ngkit compares: the turn
texts, one per line). CLUSTERS.tsv gets "id<TAB>cluster" for each record
in a cluster of two or more. WORKERS (default 2) is datatrove's number of
worker processes.
"""
import json
import os
import re
import sys


def run_datatrove(texts, work, bands, rows, ngrams, out):
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup import MinhashDedupCluster, MinhashDedupFilter, MinhashDedupSignature
    from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupBuckets
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter
    from datatrove.utils.hashing import HashConfig

    workers = int(os.environ.get("WORKERS", "2"))
    config = MinhashConfig(hash_config=HashConfig(precision=64), num_buckets=bands, hashes_per_bucket=rows,
                           n_grams=ngrams)
    src = os.path.dirname(os.path.abspath(texts))
    name = os.path.basename(texts)

    def reader():
        return JsonlReader(src, glob_pattern=name, text_key="text", id_key="id")

    def run(pipeline, tasks, stage):
        LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=min(workers, tasks),
                              logging_dir=f"{work}/logs/{stage}", skip_completed=False).run()

    run([reader(), MinhashDedupSignature(output_folder=f"{work}/signatures", config=config)], 1, "1")
    run([MinhashDedupBuckets(input_folder=f"{work}/signatures", output_folder=f"{work}/buckets", config=config)],
        bands, "2")
    run([MinhashDedupCluster(input_folder=f"{work}/buckets", output_folder=f"{work}/remove_ids", config=config,
                             save_cluster_id=True)], 1, "3")
    run([reader(), MinhashDedupFilter(input_folder=f"{work}/remove_ids", load_cluster_ids=True,
                                      exclusion_writer=JsonlWriter(f"{work}/removed", compression=None)),
         JsonlWriter(f"{work}/kept", compression=None)], 1, "4")
    with open(out, "w", encoding="utf-8") as w:
        for part in ("removed", "kept"):
            for f in sorted(os.listdir(f"{work}/{part}")):
                with open(f"{work}/{part}/{f}", encoding="utf-8") as r:
                    for line in r:
                        d = json.loads(line)
                        c = d.get("metadata", {}).get("minhash_cluster_id", -1)
                        if c != -1:
                            w.write(f"{d['id']}\t{c}\n")


def ngkit_clusters(errors, out):
    """A dropped record's error names the first of its cluster."""
    pat = re.compile(r"--dedup \w+: (?:in the cluster of|a duplicate of) (\S+)")
    first = {}
    with open(errors, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            e = json.loads(line)
            m = pat.search(e.get("error", ""))
            if not m:
                sys.exit(f"dedup.py: {errors}:{n}: not a --dedup drop: {e.get('error', '')[:80]!r}")
            first[e["id"]] = m.group(1)
    # Every drop names the record kept; one naming a dropped record would
    # split its cluster in two here.
    dropped = sorted(i for i, c in first.items() if c in first)
    if dropped:
        sys.exit(f"dedup.py: {errors}: {len(dropped)} drops name a dropped record, as {dropped[0]} names {first[dropped[0]]}")
    with open(out, "w", encoding="utf-8") as w:
        for i, c in first.items():
            w.write(f"{i}\t{c}\n")
        for c in sorted(set(first.values())):
            w.write(f"{c}\t{c}\n")


def main():
    if sys.argv[1] == "datatrove":
        t, work, b, r, n, out = sys.argv[2:8]
        run_datatrove(t, work, int(b), int(r), int(n), out)
    elif sys.argv[1] == "ngkit":
        ngkit_clusters(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"dedup.py: unknown command {sys.argv[1]}")


if __name__ == "__main__":  # datatrove's workers import this file anew
    main()
