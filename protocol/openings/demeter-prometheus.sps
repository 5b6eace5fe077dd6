# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/prometheus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/prometheus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/prometheus;00000/00000/00000/00000/00000;b4,c3/d2,d5;1;2  # score 9
demeter/prometheus;00000/00000/00000/00000/00000;b4,c3/b3,e3;1;2  # score 0
demeter/prometheus;00000/00000/00000/00000/00000;c3,c5/b2,d4;1;2  # score -1
demeter/prometheus;00000/00000/00000/00000/00000;b2,d4/b5,d3;1;2  # score 0
demeter/prometheus;00000/00000/00000/00000/00000;a3,c4/c3,c5;1;2  # score 9
demeter/prometheus;00000/00000/00000/00000/00000;b3,e4/a2,b4;1;2  # score 0
demeter/prometheus;00000/00000/00000/00000/00000;b3,d5/b2,c2;1;2  # score -9
demeter/prometheus;00000/00000/00000/00000/00000;b3,e4/c2,d5;1;2  # score 0
demeter/prometheus;00000/00000/00000/00000/00000;b4,d5/c3,c4;1;2  # score -9
demeter/prometheus;00000/00000/00000/00000/00000;b3,d5/c3,d2;1;2  # score -10
