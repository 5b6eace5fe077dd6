# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods pan/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods pan/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
pan/demeter;00000/00000/00000/00000/00000;b3,c4/a3,d3;1;2  # score -8
pan/demeter;00000/00000/00000/00000/00000;c3,c5/b3,e4;1;2  # score -10
pan/demeter;00000/00000/00000/00000/00000;b3,d4/c2,e3;1;2  # score -12
pan/demeter;00000/00000/00000/00000/00000;b4,d5/c3,e3;1;2  # score -19
pan/demeter;00000/00000/00000/00000/00000;b3,d3/a4,d4;1;2  # score -10
pan/demeter;00000/00000/00000/00000/00000;a4,d4/b3,c5;1;2  # score 3
pan/demeter;00000/00000/00000/00000/00000;a4,c4/b1,b4;1;2  # score -22
pan/demeter;00000/00000/00000/00000/00000;b3,d5/a2,b4;1;2  # score -10
pan/demeter;00000/00000/00000/00000/00000;b4,c4/a3,d4;1;2  # score -8
pan/demeter;00000/00000/00000/00000/00000;c3,c5/a4,c4;1;2  # score -2
