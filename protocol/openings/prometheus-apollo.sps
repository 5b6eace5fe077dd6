# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods prometheus/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods prometheus/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
prometheus/apollo;00000/00000/00000/00000/00000;a3,d4/b3,d3;1;2  # score -10
prometheus/apollo;00000/00000/00000/00000/00000;b4,d5/c4,d3;1;2  # score -20
prometheus/apollo;00000/00000/00000/00000/00000;b3,d5/c3,d2;1;2  # score -17
prometheus/apollo;00000/00000/00000/00000/00000;a4,c4/d2,e4;1;2  # score 12
prometheus/apollo;00000/00000/00000/00000/00000;b4,d5/c1,d4;1;2  # score -2
prometheus/apollo;00000/00000/00000/00000/00000;b5,c3/b4,e2;1;2  # score -1
prometheus/apollo;00000/00000/00000/00000/00000;a4,c4/c3,d5;1;2  # score -16
prometheus/apollo;00000/00000/00000/00000/00000;a4,c4/b3,b4;1;2  # score -18
prometheus/apollo;00000/00000/00000/00000/00000;b4,d5/a2,c3;1;2  # score 3
prometheus/apollo;00000/00000/00000/00000/00000;b5,c3/c1,d4;1;2  # score 2
