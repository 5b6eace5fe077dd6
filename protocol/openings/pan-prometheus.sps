# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods pan/prometheus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods pan/prometheus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
pan/prometheus;00000/00000/00000/00000/00000;b3,d5/c4,d1;1;2  # score -10
pan/prometheus;00000/00000/00000/00000/00000;a2,d4/c1,c3;1;2  # score -19
pan/prometheus;00000/00000/00000/00000/00000;b4,d4/b5,c3;1;2  # score 1
pan/prometheus;00000/00000/00000/00000/00000;b4,d5/c3,d4;1;2  # score -18
pan/prometheus;00000/00000/00000/00000/00000;b3,e4/b5,c3;1;2  # score -9
pan/prometheus;00000/00000/00000/00000/00000;b3,e4/c3,d4;1;2  # score -10
pan/prometheus;00000/00000/00000/00000/00000;b4,d5/a4,c3;1;2  # score 1
pan/prometheus;00000/00000/00000/00000/00000;a3,d3/b5,c3;1;2  # score -1
pan/prometheus;00000/00000/00000/00000/00000;b3,d4/b4,e3;1;2  # score -4
pan/prometheus;00000/00000/00000/00000/00000;b2,d4/b4,e3;1;2  # score -4
