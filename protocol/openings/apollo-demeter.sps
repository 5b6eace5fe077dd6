# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods apollo/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods apollo/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
apollo/demeter;00000/00000/00000/00000/00000;b5,c3/c2,d2;1;2  # score -15
apollo/demeter;00000/00000/00000/00000/00000;c3,c5/a4,c2;1;2  # score -1
apollo/demeter;00000/00000/00000/00000/00000;a3,c4/b3,d2;1;2  # score -12
apollo/demeter;00000/00000/00000/00000/00000;a3,c4/b1,d2;1;2  # score -12
apollo/demeter;00000/00000/00000/00000/00000;b3,e4/d1,d4;1;2  # score -10
apollo/demeter;00000/00000/00000/00000/00000;c3,c4/a3,d4;1;2  # score -8
apollo/demeter;00000/00000/00000/00000/00000;b3,e4/a4,c3;1;2  # score -9
apollo/demeter;00000/00000/00000/00000/00000;b4,d5/b3,e2;1;2  # score -10
apollo/demeter;00000/00000/00000/00000/00000;b4,d5/c4,e2;1;2  # score 1
apollo/demeter;00000/00000/00000/00000/00000;b4,d5/c5,d2;1;2  # score 0
