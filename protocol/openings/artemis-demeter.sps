# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods artemis/demeter, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods artemis/demeter --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
artemis/demeter;00000/00000/00000/00000/00000;b3,d5/c2,e2;1;2  # score -12
artemis/demeter;00000/00000/00000/00000/00000;a4,c4/b3,d2;1;2  # score -12
artemis/demeter;00000/00000/00000/00000/00000;b3,d4/c4,e4;1;2  # score 8
artemis/demeter;00000/00000/00000/00000/00000;b3,e4/c2,c4;1;2  # score -11
artemis/demeter;00000/00000/00000/00000/00000;b3,d5/c2,c5;1;2  # score -10
artemis/demeter;00000/00000/00000/00000/00000;a4,d4/b1,b3;1;2  # score -8
artemis/demeter;00000/00000/00000/00000/00000;a4,d4/b4,d3;1;2  # score -12
artemis/demeter;00000/00000/00000/00000/00000;b3,d5/b2,c3;1;2  # score -14
artemis/demeter;00000/00000/00000/00000/00000;a4,c4/c3,d3;1;2  # score -14
artemis/demeter;00000/00000/00000/00000/00000;b3,d5/b2,c4;1;2  # score -10
