# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods minotaur/pan, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods minotaur/pan --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
minotaur/pan;00000/00000/00000/00000/00000;a2,d4/b4,c1;1;2  # score 0
minotaur/pan;00000/00000/00000/00000/00000;a2,d4/b2,d5;1;2  # score 0
minotaur/pan;00000/00000/00000/00000/00000;a2,d4/b2,e3;1;2  # score -2
minotaur/pan;00000/00000/00000/00000/00000;c3,c4/b4,c1;1;2  # score 26
minotaur/pan;00000/00000/00000/00000/00000;b4,c4/b2,d3;1;2  # score 0
minotaur/pan;00000/00000/00000/00000/00000;b4,c3/c4,e2;1;2  # score 11
minotaur/pan;00000/00000/00000/00000/00000;b3,e4/b2,d5;1;2  # score 0
minotaur/pan;00000/00000/00000/00000/00000;b4,c4/b5,d2;1;2  # score 9
minotaur/pan;00000/00000/00000/00000/00000;b4,c4/b1,d2;1;2  # score 0
minotaur/pan;00000/00000/00000/00000/00000;a4,d4/a2,c2;1;2  # score 8
