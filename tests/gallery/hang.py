"""Handshakes, then never answers ``go`` (and ignores ``stop``); answers isready and quit."""

import sys

for line in sys.stdin:
    cmd = line.split()[0] if line.split() else ""
    if cmd == "sei":
        print("id name hang\nseiok 1", flush=True)
    elif cmd == "isready":
        print("readyok", flush=True)
    elif cmd == "quit":
        break
