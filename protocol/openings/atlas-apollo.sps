# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods atlas/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods atlas/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
atlas/apollo;00000/00000/00000/00000/00000;a3,d3/b4,c3;1;2  # score -19
atlas/apollo;00000/00000/00000/00000/00000;a4,c4/d2,d5;1;2  # score -22
atlas/apollo;00000/00000/00000/00000/00000;b4,d5/b1,d3;1;2  # score 0
atlas/apollo;00000/00000/00000/00000/00000;b5,c3/b2,c4;1;2  # score -21
atlas/apollo;00000/00000/00000/00000/00000;b3,d4/c4,e4;1;2  # score -2
atlas/apollo;00000/00000/00000/00000/00000;a3,c4/c5,d3;1;2  # score -11
atlas/apollo;00000/00000/00000/00000/00000;a3,c4/c3,e4;1;2  # score -7
atlas/apollo;00000/00000/00000/00000/00000;b5,c3/c1,c4;1;2  # score -6
atlas/apollo;00000/00000/00000/00000/00000;b4,d5/b2,b3;1;2  # score -9
atlas/apollo;00000/00000/00000/00000/00000;b4,c4/b3,c1;1;2  # score 0
