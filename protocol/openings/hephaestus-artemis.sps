# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hephaestus/artemis, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hephaestus/artemis --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hephaestus/artemis;00000/00000/00000/00000/00000;b3,e4/c4,d1;1;2  # score 0
hephaestus/artemis;00000/00000/00000/00000/00000;a3,d4/b4,e2;1;2  # score -2
hephaestus/artemis;00000/00000/00000/00000/00000;a2,d4/a4,c3;1;2  # score -9
hephaestus/artemis;00000/00000/00000/00000/00000;a2,d4/c2,c5;1;2  # score -9
hephaestus/artemis;00000/00000/00000/00000/00000;b3,e4/c1,c4;1;2  # score 0
hephaestus/artemis;00000/00000/00000/00000/00000;a2,d4/b3,b5;1;2  # score -9
hephaestus/artemis;00000/00000/00000/00000/00000;b3,d5/b1,d3;1;2  # score -9
hephaestus/artemis;00000/00000/00000/00000/00000;b5,c3/b4,c1;1;2  # score -5
hephaestus/artemis;00000/00000/00000/00000/00000;b3,e4/c3,c4;1;2  # score -9
hephaestus/artemis;00000/00000/00000/00000/00000;a3,d4/c2,c3;1;2  # score -4
