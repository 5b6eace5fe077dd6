# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/atlas, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/atlas --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/atlas;00000/00000/00000/00000/00000;b3,e4/a3,d3;1;2  # score 10
demeter/atlas;00000/00000/00000/00000/00000;a2,d4/a4,c3;1;2  # score 1
demeter/atlas;00000/00000/00000/00000/00000;b3,c4/c5,d2;1;2  # score 12
demeter/atlas;00000/00000/00000/00000/00000;b3,e4/b1,d3;1;2  # score 8
demeter/atlas;00000/00000/00000/00000/00000;a3,d4/c2,c5;1;2  # score 10
demeter/atlas;00000/00000/00000/00000/00000;a4,c4/b2,d3;1;2  # score 8
demeter/atlas;00000/00000/00000/00000/00000;a3,d4/b3,b4;1;2  # score 0
demeter/atlas;00000/00000/00000/00000/00000;a3,c4/c1,d4;1;2  # score 8
demeter/atlas;00000/00000/00000/00000/00000;b5,c3/c2,d3;1;2  # score 5
demeter/atlas;00000/00000/00000/00000/00000;c3,c4/a2,d4;1;2  # score 19
