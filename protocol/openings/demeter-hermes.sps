# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/hermes, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/hermes --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/hermes;00000/00000/00000/00000/00000;c3,c5/a3,c4;1;2  # score -3
demeter/hermes;00000/00000/00000/00000/00000;b4,d4/a3,d3;1;2  # score 2
demeter/hermes;00000/00000/00000/00000/00000;a4,d4/a2,c4;1;2  # score 6
demeter/hermes;00000/00000/00000/00000/00000;a4,c4/b2,b4;1;2  # score -18
demeter/hermes;00000/00000/00000/00000/00000;b4,c3/c2,e3;1;2  # score 7
demeter/hermes;00000/00000/00000/00000/00000;b2,d4/a3,d3;1;2  # score -9
demeter/hermes;00000/00000/00000/00000/00000;a4,d4/c4,d2;1;2  # score 6
demeter/hermes;00000/00000/00000/00000/00000;b5,c3/c4,e2;1;2  # score -3
demeter/hermes;00000/00000/00000/00000/00000;a2,d4/c4,e3;1;2  # score -2
demeter/hermes;00000/00000/00000/00000/00000;a3,d3/c3,d5;1;2  # score -2
