#!/usr/bin/env python3
"""A test agent that will not stop: it starts a child of its own, reports both pids as progress
("PID CHILD_PID"), ignores SIGTERM (and so does its child, which inherits the ignored signal) and
never exits. Only SIGKILL of the whole tree ends it."""

import json
import os
import signal
import subprocess
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
json.load(sys.stdin)
child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(1)"])
print("@carillon " + json.dumps({"type": "progress", "message": "%d %d" % (os.getpid(), child.pid)}),
      flush=True)
while True:
    time.sleep(1)
