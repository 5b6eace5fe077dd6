# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods minotaur/artemis, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods minotaur/artemis --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
minotaur/artemis;00000/00000/00000/00000/00000;b5,c3/b2,c5;1;2  # score -3
minotaur/artemis;00000/00000/00000/00000/00000;b3,c4/c3,d3;1;2  # score -7
minotaur/artemis;00000/00000/00000/00000/00000;b3,d4/a3,d2;1;2  # score -2
minotaur/artemis;00000/00000/00000/00000/00000;b3,d3/a4,c4;1;2  # score 1
minotaur/artemis;00000/00000/00000/00000/00000;b4,d5/b3,c3;1;2  # score -3
minotaur/artemis;00000/00000/00000/00000/00000;b3,d4/b2,b4;1;2  # score -2
minotaur/artemis;00000/00000/00000/00000/00000;b3,d5/b4,e2;1;2  # score -2
minotaur/artemis;00000/00000/00000/00000/00000;b2,d4/c3,c5;1;2  # score -9
minotaur/artemis;00000/00000/00000/00000/00000;b4,c3/b5,d4;1;2  # score 19
minotaur/artemis;00000/00000/00000/00000/00000;a4,d4/b4,c2;1;2  # score 0
