# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/artemis, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/artemis --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/artemis;00000/00000/00000/00000/00000;b4,c3/b3,d3;1;2  # score 10
demeter/artemis;00000/00000/00000/00000/00000;b4,d5/b3,c2;1;2  # score 6
demeter/artemis;00000/00000/00000/00000/00000;b4,c3/b2,e3;1;2  # score 10
demeter/artemis;00000/00000/00000/00000/00000;a3,c4/d2,e4;1;2  # score 7
demeter/artemis;00000/00000/00000/00000/00000;b2,d4/b3,d3;1;2  # score -2
demeter/artemis;00000/00000/00000/00000/00000;b5,c3/a3,c4;1;2  # score -1
demeter/artemis;00000/00000/00000/00000/00000;b3,c4/d2,d3;1;2  # score 2
demeter/artemis;00000/00000/00000/00000/00000;b3,d5/b2,d3;1;2  # score 0
demeter/artemis;00000/00000/00000/00000/00000;a3,c4/b3,c5;1;2  # score 8
demeter/artemis;00000/00000/00000/00000/00000;b5,c3/c4,e3;1;2  # score 7
