# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hermes/prometheus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hermes/prometheus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hermes/prometheus;00000/00000/00000/00000/00000;b3,d3/a4,d4;1;2  # score 0
hermes/prometheus;00000/00000/00000/00000/00000;b2,d4/c3,c4;1;2  # score -10
hermes/prometheus;00000/00000/00000/00000/00000;a3,c4/b2,c5;1;2  # score 0
hermes/prometheus;00000/00000/00000/00000/00000;b4,d4/b2,d3;1;2  # score -10
hermes/prometheus;00000/00000/00000/00000/00000;a4,d4/b2,d2;1;2  # score -10
hermes/prometheus;00000/00000/00000/00000/00000;b4,d5/d2,d3;1;2  # score -10
hermes/prometheus;00000/00000/00000/00000/00000;a4,c4/c2,e3;1;2  # score 3
hermes/prometheus;00000/00000/00000/00000/00000;b2,d4/c4,d3;1;2  # score -5
hermes/prometheus;00000/00000/00000/00000/00000;b3,d4/a2,c4;1;2  # score 8
hermes/prometheus;00000/00000/00000/00000/00000;b4,d4/b1,b3;1;2  # score 8
