# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hermes/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hermes/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hermes/demeter;00000/00000/00000/00000/00000;b3,d3/b5,c2;1;2  # score -1
hermes/demeter;00000/00000/00000/00000/00000;b3,d5/a4,c3;1;2  # score -3
hermes/demeter;00000/00000/00000/00000/00000;b4,c3/c4,d3;1;2  # score -11
hermes/demeter;00000/00000/00000/00000/00000;b2,d4/c3,c4;1;2  # score -14
hermes/demeter;00000/00000/00000/00000/00000;b3,d5/a4,d2;1;2  # score 0
hermes/demeter;00000/00000/00000/00000/00000;b3,e4/a2,d2;1;2  # score 0
hermes/demeter;00000/00000/00000/00000/00000;b3,e4/a4,d4;1;2  # score 0
hermes/demeter;00000/00000/00000/00000/00000;a3,d3/b3,b4;1;2  # score -10
hermes/demeter;00000/00000/00000/00000/00000;c3,c5/b4,c2;1;2  # score -10
hermes/demeter;00000/00000/00000/00000/00000;b3,e4/b4,c1;1;2  # score 0
