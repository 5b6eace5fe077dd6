# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods apollo/artemis, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods apollo/artemis --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
apollo/artemis;00000/00000/00000/00000/00000;b5,c3/b2,d4;1;2  # score -11
apollo/artemis;00000/00000/00000/00000/00000;a3,c4/b4,c2;1;2  # score -7
apollo/artemis;00000/00000/00000/00000/00000;b4,c4/a3,c2;1;2  # score 7
apollo/artemis;00000/00000/00000/00000/00000;b4,c4/c2,e2;1;2  # score 7
apollo/artemis;00000/00000/00000/00000/00000;a4,c4/c2,d5;1;2  # score -7
apollo/artemis;00000/00000/00000/00000/00000;b3,d3/a3,c4;1;2  # score 0
apollo/artemis;00000/00000/00000/00000/00000;a4,d4/c2,c5;1;2  # score -9
apollo/artemis;00000/00000/00000/00000/00000;a3,d3/c3,d4;1;2  # score -9
apollo/artemis;00000/00000/00000/00000/00000;c3,c5/b2,e4;1;2  # score -1
apollo/artemis;00000/00000/00000/00000/00000;a4,d4/b5,d3;1;2  # score 0
