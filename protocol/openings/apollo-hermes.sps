# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods apollo/hermes, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods apollo/hermes --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
apollo/hermes;00000/00000/00000/00000/00000;b3,e4/d3,d4;1;2  # score -10
apollo/hermes;00000/00000/00000/00000/00000;a4,d4/b3,e3;1;2  # score -4
apollo/hermes;00000/00000/00000/00000/00000;b3,e4/a4,d3;1;2  # score -10
apollo/hermes;00000/00000/00000/00000/00000;b4,d5/b2,e3;1;2  # score -4
apollo/hermes;00000/00000/00000/00000/00000;b4,c4/b2,d2;1;2  # score -4
apollo/hermes;00000/00000/00000/00000/00000;a4,c4/b4,e3;1;2  # score -8
apollo/hermes;00000/00000/00000/00000/00000;b5,c3/b3,c2;1;2  # score -5
apollo/hermes;00000/00000/00000/00000/00000;b3,d4/b2,d5;1;2  # score -4
apollo/hermes;00000/00000/00000/00000/00000;b3,e4/d2,d5;1;2  # score -10
apollo/hermes;00000/00000/00000/00000/00000;a2,d4/b2,b5;1;2  # score -9
