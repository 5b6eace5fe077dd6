# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods athena/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods athena/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
athena/demeter;00000/00000/00000/00000/00000;b3,d3/b4,c3;1;2  # score -12
athena/demeter;00000/00000/00000/00000/00000;b4,d5/b1,d3;1;2  # score -10
athena/demeter;00000/00000/00000/00000/00000;b3,c4/a2,d3;1;2  # score -1
athena/demeter;00000/00000/00000/00000/00000;b3,e4/c4,d3;1;2  # score -19
athena/demeter;00000/00000/00000/00000/00000;b4,d5/c2,e4;1;2  # score -2
athena/demeter;00000/00000/00000/00000/00000;b4,d5/b2,c3;1;2  # score -20
athena/demeter;00000/00000/00000/00000/00000;b4,d5/b3,d3;1;2  # score -19
athena/demeter;00000/00000/00000/00000/00000;b3,e4/a3,d4;1;2  # score -14
athena/demeter;00000/00000/00000/00000/00000;c3,c4/b2,b5;1;2  # score -2
athena/demeter;00000/00000/00000/00000/00000;c3,c5/b2,d3;1;2  # score -13
