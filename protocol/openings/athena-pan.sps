# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods athena/pan, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods athena/pan --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
athena/pan;00000/00000/00000/00000/00000;a2,d4/c2,e3;1;2  # score -2
athena/pan;00000/00000/00000/00000/00000;b3,e4/c2,c3;1;2  # score -9
athena/pan;00000/00000/00000/00000/00000;b4,c3/c4,d3;1;2  # score 0
athena/pan;00000/00000/00000/00000/00000;b3,e4/c2,e2;1;2  # score 8
athena/pan;00000/00000/00000/00000/00000;a4,d4/b3,b4;1;2  # score -19
athena/pan;00000/00000/00000/00000/00000;a4,d4/c4,e4;1;2  # score 8
athena/pan;00000/00000/00000/00000/00000;b4,c4/a4,d4;1;2  # score 4
athena/pan;00000/00000/00000/00000/00000;c3,c5/b4,c1;1;2  # score -1
athena/pan;00000/00000/00000/00000/00000;b3,d4/a3,c3;1;2  # score 1
athena/pan;00000/00000/00000/00000/00000;a2,d4/b1,c4;1;2  # score 0
