# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hephaestus/prometheus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hephaestus/prometheus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,e4/c1,c4;1;2  # score -10
hephaestus/prometheus;00000/00000/00000/00000/00000;b4,c4/c1,d4;1;2  # score -11
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,e4/b2,d2;1;2  # score -11
hephaestus/prometheus;00000/00000/00000/00000/00000;a3,c4/c3,d4;1;2  # score -18
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,d5/c4,d3;1;2  # score -10
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,e4/c4,e3;1;2  # score -4
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,d5/b1,d3;1;2  # score -10
hephaestus/prometheus;00000/00000/00000/00000/00000;a3,c4/a2,c2;1;2  # score -1
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,d4/c2,c5;1;2  # score 0
hephaestus/prometheus;00000/00000/00000/00000/00000;b3,d5/d2,e4;1;2  # score 3
