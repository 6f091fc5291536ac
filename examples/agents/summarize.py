#!/usr/bin/env python3
"""Summarise text files: a Carillon exec agent in plain Python (standard library only).

For each file named in the task's params it counts lines and words and finds the most common
words, reports its progress as it goes, writes a JSON report and returns a one-line summary with
the report's URI. It shows the whole exec protocol (docs/plugin-guide.md, "Agents in any
language"):

  * the run's context arrives as one JSON object on stdin (and as CARILLON_* variables);
  * lines starting with "@carillon " on stdout talk to the worker: progress, a checkpoint after
    each file, then the result;
  * a retry resumes: the context's "resume" holds the last checkpoint an earlier attempt saved
    (also in the file named by CARILLON_RESUME_FILE), and the files it had summarised are not
    read again;
  * the exit code says what happened: 0 done, 75 (EX_TEMPFAIL) try again later, 64-78 otherwise
    (here 64 EX_USAGE, 65 EX_DATAERR, 66 EX_NOINPUT) wrong input that a retry cannot fix;
  * SIGTERM (timeout, lost lease, cancel, shutdown) stops it between two steps: it removes its
    half-written report and exits; SIGKILL follows after the task's grace if it does not.

Params (besides "exec", which tells the worker how to start this script):
  paths   files to summarise, relative to the working directory (required)
  top     how many common words to list (default 5)
  outDir  where the report goes (default: the system's temp directory)
  pace    seconds to spend per file, to stand in for a slow model call (default 0)

A file that does not exist yet is "not ready": exit 75, so the task's retry policy may run the
window again later. A path that is not a regular file is a mistake in the task: exit 65.

The checkpoint holds the summaries made so far (a few hundred bytes per file). The worker keeps
at most 64 KiB per checkpoint, so an agent with much more state writes it elsewhere and
checkpoints a reference to it. A checkpoint is used only if it covers the first files of the
same list (the task's paths may have changed between attempts).
"""

import collections
import json
import os
import pathlib
import re
import signal
import sys
import tempfile
import time

EX_OK = 0
EX_USAGE = 64
EX_DATAERR = 65
EX_NOINPUT = 66
EX_TEMPFAIL = 75

WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")


class Stopped(Exception):
    """Raised by the SIGTERM handler, so that a sleep or a read ends at once."""


def on_sigterm(signum, frame):
    raise Stopped()


def say(kind, **fields):
    """One protocol line; flushed, so the worker sees it now and not when the buffer fills."""
    fields["type"] = kind
    print("@carillon " + json.dumps(fields), flush=True)


def fail(code, message):
    print(message, file=sys.stderr, flush=True)
    sys.exit(code)


def summarise(path, top):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    words = [w.lower() for w in WORD.findall(text)]
    return {
        "path": path,
        "lines": text.count("\n") + (0 if text.endswith("\n") or not text else 1),
        "words": len(words),
        "top": collections.Counter(words).most_common(top),
    }


def resumed(context, paths):
    """The summaries an earlier attempt checkpointed, if they cover the first of these paths."""
    last = (context.get("resume") or {}).get("lastCheckpoint")
    if not last or not isinstance(last.get("state"), dict):
        return [], None
    files = last["state"].get("files")
    if not isinstance(files, list) or len(files) > len(paths):
        return [], None
    if [f.get("path") if isinstance(f, dict) else None for f in files] != paths[: len(files)]:
        return [], None
    return files, last.get("attempt")


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    context = json.load(sys.stdin)
    params = context.get("params", {})
    paths = params.get("paths")
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        fail(EX_USAGE, "params.paths must be a non-empty list of file names")
    top = params.get("top", 5)
    pace = float(params.get("pace", 0))
    out_dir = params.get("outDir") or tempfile.gettempdir()

    for p in paths:
        if os.path.exists(p) and not os.path.isfile(p):
            fail(EX_DATAERR, "%s is not a regular file" % p)
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        fail(EX_TEMPFAIL, "not ready: %s does not exist yet" % ", ".join(missing))

    # One report per window: a retry of the window overwrites it instead of adding another.
    name = re.sub(r"[^A-Za-z0-9._-]", "_", context["idempotencyKey"]) + ".json"
    os.makedirs(out_dir, exist_ok=True)
    report_path = os.path.abspath(os.path.join(out_dir, name))
    partial = report_path + ".part"
    files, resumed_from = resumed(context, paths)
    if resumed_from is not None:
        say(
            "progress",
            message="resuming after %d of %d files (attempt %d's checkpoint)"
            % (len(files), len(paths), resumed_from),
        )
    try:
        for n in range(len(files) + 1, len(paths) + 1):
            p = paths[n - 1]
            say("progress", message="summarising %s (%d of %d)" % (p, n, len(paths)))
            if pace:
                time.sleep(pace)
            try:
                files.append(summarise(p, top))
            except OSError as e:
                fail(EX_NOINPUT, "cannot read %s: %s" % (p, e.strerror))
            # Done with this file for good: a retry starts after it.
            say("checkpoint", state={"files": files})
        report = {
            "task": context["taskId"],
            "window": context["windowKey"],
            "attempt": context["attempt"],
            "resumedFrom": resumed_from,
            "files": files,
        }
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
        os.replace(partial, report_path)
    except Stopped:
        if os.path.exists(partial):
            os.remove(partial)
        print("stopped by SIGTERM", file=sys.stderr, flush=True)
        sys.exit(128 + signal.SIGTERM)

    words = sum(f["words"] for f in files)
    common = collections.Counter()
    for f in files:
        common.update(dict(f["top"]))
    say("progress", message="%d of %d files summarised" % (len(files), len(paths)))
    say(
        "result",
        summary="%d file(s), %d words; most common: %s"
        % (len(files), words, ", ".join(w for w, _ in common.most_common(top))),
        uri=pathlib.Path(report_path).as_uri(),
    )
    return EX_OK


if __name__ == "__main__":
    sys.exit(main())
