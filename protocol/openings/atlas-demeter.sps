# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods atlas/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods atlas/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
atlas/demeter;00000/00000/00000/00000/00000;b3,d5/c2,c4;1;2  # score -19
atlas/demeter;00000/00000/00000/00000/00000;b3,d5/c4,d2;1;2  # score -12
atlas/demeter;00000/00000/00000/00000/00000;b3,d4/a2,c4;1;2  # score -6
atlas/demeter;00000/00000/00000/00000/00000;b3,d4/a2,d3;1;2  # score -1
atlas/demeter;00000/00000/00000/00000/00000;a2,d4/c4,e4;1;2  # score -2
atlas/demeter;00000/00000/00000/00000/00000;a4,c4/c2,e4;1;2  # score -10
atlas/demeter;00000/00000/00000/00000/00000;b5,c3/b2,b3;1;2  # score -13
atlas/demeter;00000/00000/00000/00000/00000;b3,d5/a4,d4;1;2  # score -13
atlas/demeter;00000/00000/00000/00000/00000;b5,c3/a4,c4;1;2  # score -2
atlas/demeter;00000/00000/00000/00000/00000;a3,c4/c2,d5;1;2  # score -8
