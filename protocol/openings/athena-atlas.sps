# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods athena/atlas, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods athena/atlas --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
athena/atlas;00000/00000/00000/00000/00000;a4,c4/b5,d3;1;2  # score 4
athena/atlas;00000/00000/00000/00000/00000;b4,d4/b1,b3;1;2  # score 3
athena/atlas;00000/00000/00000/00000/00000;a4,d4/c2,e4;1;2  # score 8
athena/atlas;00000/00000/00000/00000/00000;a2,d4/c2,e3;1;2  # score -2
athena/atlas;00000/00000/00000/00000/00000;a4,d4/a2,c4;1;2  # score 0
athena/atlas;00000/00000/00000/00000/00000;b3,e4/c4,e3;1;2  # score 0
athena/atlas;00000/00000/00000/00000/00000;b5,c3/c5,d3;1;2  # score 3
athena/atlas;00000/00000/00000/00000/00000;b3,e4/b2,e3;1;2  # score -4
athena/atlas;00000/00000/00000/00000/00000;b4,d5/c2,e3;1;2  # score 8
athena/atlas;00000/00000/00000/00000/00000;a4,d4/b2,c4;1;2  # score 0
