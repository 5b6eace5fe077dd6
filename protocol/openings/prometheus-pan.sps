# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods prometheus/pan, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods prometheus/pan --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
prometheus/pan;00000/00000/00000/00000/00000;b4,c4/d1,d4;1;2  # score 15
prometheus/pan;00000/00000/00000/00000/00000;b5,c3/c4,e4;1;2  # score 7
prometheus/pan;00000/00000/00000/00000/00000;b4,d5/b2,c2;1;2  # score 12
prometheus/pan;00000/00000/00000/00000/00000;b3,d5/b1,d2;1;2  # score 10
prometheus/pan;00000/00000/00000/00000/00000;b3,c4/c5,d2;1;2  # score 10
prometheus/pan;00000/00000/00000/00000/00000;a4,d4/c2,c4;1;2  # score 10
prometheus/pan;00000/00000/00000/00000/00000;b4,c4/a4,c3;1;2  # score 11
prometheus/pan;00000/00000/00000/00000/00000;a3,d3/a2,d4;1;2  # score 10
prometheus/pan;00000/00000/00000/00000/00000;a3,c4/d1,d3;1;2  # score 12
prometheus/pan;00000/00000/00000/00000/00000;b3,d5/b5,d2;1;2  # score 10
