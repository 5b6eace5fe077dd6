# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods prometheus/hephaestus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods prometheus/hephaestus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
prometheus/hephaestus;00000/00000/00000/00000/00000;a4,d4/b4,d2;1;2  # score 0
prometheus/hephaestus;00000/00000/00000/00000/00000;b5,c3/c1,d4;1;2  # score 15
prometheus/hephaestus;00000/00000/00000/00000/00000;b3,d4/c2,e2;1;2  # score 23
prometheus/hephaestus;00000/00000/00000/00000/00000;b3,d4/c1,d3;1;2  # score 10
prometheus/hephaestus;00000/00000/00000/00000/00000;b3,d5/c5,d2;1;2  # score 10
prometheus/hephaestus;00000/00000/00000/00000/00000;a2,d4/d3,d5;1;2  # score 18
prometheus/hephaestus;00000/00000/00000/00000/00000;a4,d4/a3,d2;1;2  # score 10
prometheus/hephaestus;00000/00000/00000/00000/00000;b3,d4/c3,d1;1;2  # score 11
prometheus/hephaestus;00000/00000/00000/00000/00000;c3,c5/a2,d3;1;2  # score 9
prometheus/hephaestus;00000/00000/00000/00000/00000;b4,d5/a3,d2;1;2  # score 12
