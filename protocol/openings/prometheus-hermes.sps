# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods prometheus/hermes, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods prometheus/hermes --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
prometheus/hermes;00000/00000/00000/00000/00000;b4,d4/b3,c4;1;2  # score -10
prometheus/hermes;00000/00000/00000/00000/00000;b4,c4/b3,d3;1;2  # score 6
prometheus/hermes;00000/00000/00000/00000/00000;b3,d5/c4,d4;1;2  # score -22
prometheus/hermes;00000/00000/00000/00000/00000;a3,c4/b2,c3;1;2  # score -7
prometheus/hermes;00000/00000/00000/00000/00000;a4,d4/c2,d5;1;2  # score 6
prometheus/hermes;00000/00000/00000/00000/00000;b3,d5/b4,d3;1;2  # score -2
prometheus/hermes;00000/00000/00000/00000/00000;a3,c4/b4,e3;1;2  # score -2
prometheus/hermes;00000/00000/00000/00000/00000;b4,d5/b1,d2;1;2  # score 6
prometheus/hermes;00000/00000/00000/00000/00000;b3,c4/b5,c3;1;2  # score -2
prometheus/hermes;00000/00000/00000/00000/00000;c3,c4/b1,b3;1;2  # score 5
