# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/apollo;00000/00000/00000/00000/00000;c3,c5/a2,b4;1;2  # score 2
demeter/apollo;00000/00000/00000/00000/00000;b4,d5/b2,c2;1;2  # score 12
demeter/apollo;00000/00000/00000/00000/00000;c3,c4/b1,d3;1;2  # score 12
demeter/apollo;00000/00000/00000/00000/00000;b3,d4/b2,d1;1;2  # score 20
demeter/apollo;00000/00000/00000/00000/00000;a4,c4/c3,d2;1;2  # score -7
demeter/apollo;00000/00000/00000/00000/00000;b4,d5/b2,c5;1;2  # score -29
demeter/apollo;00000/00000/00000/00000/00000;b4,c4/c1,d3;1;2  # score 10
demeter/apollo;00000/00000/00000/00000/00000;b3,d5/d3,d4;1;2  # score -17
demeter/apollo;00000/00000/00000/00000/00000;c3,c4/a4,b2;1;2  # score 12
demeter/apollo;00000/00000/00000/00000/00000;c3,c4/b2,e4;1;2  # score 10
