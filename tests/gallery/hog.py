"""A well-behaved engine until its first play turn, then it burns CPU or memory.

``hog.py cpu``: spins forever (a CPU-time limit must stop it).  ``hog.py memory``: allocates
without bound (a memory limit must stop it; Python then dies with MemoryError on stderr).
"""

import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "cpu"
placed = False
last = ""  # the last position line
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "sei":
        print("id name hog\nseiok 1", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        if not placed:
            placed = True
            print("bestmove a1,a2" if "moves" not in last else "bestmove d5,e5", flush=True)
            continue
        if mode == "cpu":
            while True:
                pass
        hoard = []
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))
    elif words[0] == "position":
        last = line
    elif words[0] == "quit":
        break
