# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods minotaur/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods minotaur/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
minotaur/demeter;00000/00000/00000/00000/00000;b3,c4/a4,d4;1;2  # score 5
minotaur/demeter;00000/00000/00000/00000/00000;b3,d4/b4,e3;1;2  # score 9
minotaur/demeter;00000/00000/00000/00000/00000;b4,c3/b3,d4;1;2  # score 15
minotaur/demeter;00000/00000/00000/00000/00000;b5,c3/b2,d5;1;2  # score 1
minotaur/demeter;00000/00000/00000/00000/00000;b4,c4/b5,d2;1;2  # score 0
minotaur/demeter;00000/00000/00000/00000/00000;a3,d4/b3,d3;1;2  # score -19
minotaur/demeter;00000/00000/00000/00000/00000;b5,c3/b1,b4;1;2  # score 3
minotaur/demeter;00000/00000/00000/00000/00000;b3,e4/c3,d4;1;2  # score -14
minotaur/demeter;00000/00000/00000/00000/00000;b4,d5/b3,e2;1;2  # score -10
minotaur/demeter;00000/00000/00000/00000/00000;b4,c4/c3,d2;1;2  # score -19
