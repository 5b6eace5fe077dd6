# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods minotaur/prometheus, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods minotaur/prometheus --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
minotaur/prometheus;00000/00000/00000/00000/00000;b4,d4/b5,c2;1;2  # score 0
minotaur/prometheus;00000/00000/00000/00000/00000;a3,d3/b5,c3;1;2  # score -1
minotaur/prometheus;00000/00000/00000/00000/00000;a4,d4/c5,d3;1;2  # score 3
minotaur/prometheus;00000/00000/00000/00000/00000;b5,c3/d2,d4;1;2  # score 0
minotaur/prometheus;00000/00000/00000/00000/00000;b3,e4/b5,d2;1;2  # score -10
minotaur/prometheus;00000/00000/00000/00000/00000;a3,d4/a4,d2;1;2  # score 0
minotaur/prometheus;00000/00000/00000/00000/00000;b4,c3/c4,e4;1;2  # score 9
minotaur/prometheus;00000/00000/00000/00000/00000;b4,c3/b3,d3;1;2  # score -10
minotaur/prometheus;00000/00000/00000/00000/00000;b3,e4/a3,d2;1;2  # score -4
minotaur/prometheus;00000/00000/00000/00000/00000;a3,c4/d2,e4;1;2  # score -12
