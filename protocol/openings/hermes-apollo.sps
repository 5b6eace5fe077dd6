# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hermes/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hermes/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hermes/apollo;00000/00000/00000/00000/00000;b3,d5/c2,c4;1;2  # score -10
hermes/apollo;00000/00000/00000/00000/00000;b3,d5/c3,d3;1;2  # score -11
hermes/apollo;00000/00000/00000/00000/00000;a4,d4/b2,d3;1;2  # score -9
hermes/apollo;00000/00000/00000/00000/00000;b3,d5/b1,d3;1;2  # score 2
hermes/apollo;00000/00000/00000/00000/00000;b3,d5/b2,d3;1;2  # score -9
hermes/apollo;00000/00000/00000/00000/00000;b4,c4/a3,d2;1;2  # score 0
hermes/apollo;00000/00000/00000/00000/00000;a4,c4/b2,c3;1;2  # score -11
hermes/apollo;00000/00000/00000/00000/00000;b5,c3/b2,e3;1;2  # score 0
hermes/apollo;00000/00000/00000/00000/00000;a4,d4/b2,d2;1;2  # score 0
hermes/apollo;00000/00000/00000/00000/00000;c3,c4/a2,d3;1;2  # score 0
