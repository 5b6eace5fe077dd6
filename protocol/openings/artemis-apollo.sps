# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods artemis/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods artemis/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
artemis/apollo;00000/00000/00000/00000/00000;b4,d5/c3,d2;1;2  # score -11
artemis/apollo;00000/00000/00000/00000/00000;a4,c4/b3,c3;1;2  # score -23
artemis/apollo;00000/00000/00000/00000/00000;c3,c4/b3,d4;1;2  # score -9
artemis/apollo;00000/00000/00000/00000/00000;a3,d4/c2,c4;1;2  # score -12
artemis/apollo;00000/00000/00000/00000/00000;a3,d3/b4,d5;1;2  # score 0
artemis/apollo;00000/00000/00000/00000/00000;a2,d4/c3,c4;1;2  # score -13
artemis/apollo;00000/00000/00000/00000/00000;b4,d5/b2,d2;1;2  # score 0
artemis/apollo;00000/00000/00000/00000/00000;b3,e4/c2,e3;1;2  # score -6
artemis/apollo;00000/00000/00000/00000/00000;b4,d5/b5,d3;1;2  # score -12
artemis/apollo;00000/00000/00000/00000/00000;b4,c4/c3,d5;1;2  # score -2
