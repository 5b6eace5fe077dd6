# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods hephaestus/apollo, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods hephaestus/apollo --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hephaestus/apollo;00000/00000/00000/00000/00000;a3,d4/b1,c3;1;2  # score 1
hephaestus/apollo;00000/00000/00000/00000/00000;b3,d5/a3,d3;1;2  # score -17
hephaestus/apollo;00000/00000/00000/00000/00000;a3,d4/b3,c2;1;2  # score -10
hephaestus/apollo;00000/00000/00000/00000/00000;b4,c4/c5,d3;1;2  # score -6
hephaestus/apollo;00000/00000/00000/00000/00000;a2,d4/a4,c2;1;2  # score -6
hephaestus/apollo;00000/00000/00000/00000/00000;a3,c4/b4,d4;1;2  # score -2
hephaestus/apollo;00000/00000/00000/00000/00000;a2,d4/b4,d1;1;2  # score 0
hephaestus/apollo;00000/00000/00000/00000/00000;a4,d4/b2,c3;1;2  # score -16
hephaestus/apollo;00000/00000/00000/00000/00000;a4,d4/c2,c4;1;2  # score -12
hephaestus/apollo;00000/00000/00000/00000/00000;a4,c4/b4,d2;1;2  # score -28
