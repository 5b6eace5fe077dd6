# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods apollo/minotaur, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods apollo/minotaur --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
apollo/minotaur;00000/00000/00000/00000/00000;b3,d5/b1,c4;1;2  # score 21
apollo/minotaur;00000/00000/00000/00000/00000;a4,c4/d2,d5;1;2  # score -8
apollo/minotaur;00000/00000/00000/00000/00000;b4,c4/a3,c2;1;2  # score 7
apollo/minotaur;00000/00000/00000/00000/00000;b3,e4/d2,d5;1;2  # score 0
apollo/minotaur;00000/00000/00000/00000/00000;b3,d4/a4,c2;1;2  # score 0
apollo/minotaur;00000/00000/00000/00000/00000;a3,c4/a4,d4;1;2  # score 2
apollo/minotaur;00000/00000/00000/00000/00000;b4,d5/b3,c1;1;2  # score -4
apollo/minotaur;00000/00000/00000/00000/00000;a4,d4/c2,d2;1;2  # score 0
apollo/minotaur;00000/00000/00000/00000/00000;b4,d4/b1,c3;1;2  # score -1
apollo/minotaur;00000/00000/00000/00000/00000;a3,c4/c2,c3;1;2  # score -21
