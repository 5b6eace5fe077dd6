# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods demeter/athena, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods demeter/athena --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
demeter/athena;00000/00000/00000/00000/00000;a4,d4/a2,c2;1;2  # score 18
demeter/athena;00000/00000/00000/00000/00000;a4,c4/c2,d5;1;2  # score 12
demeter/athena;00000/00000/00000/00000/00000;b3,d5/c3,e3;1;2  # score 1
demeter/athena;00000/00000/00000/00000/00000;c3,c5/a4,c2;1;2  # score 19
demeter/athena;00000/00000/00000/00000/00000;a2,d4/b2,b5;1;2  # score -9
demeter/athena;00000/00000/00000/00000/00000;a4,d4/b4,c2;1;2  # score -10
demeter/athena;00000/00000/00000/00000/00000;b5,c3/c2,d4;1;2  # score 5
demeter/athena;00000/00000/00000/00000/00000;b4,d5/b1,b3;1;2  # score 20
demeter/athena;00000/00000/00000/00000/00000;b3,d4/a3,c4;1;2  # score 10
demeter/athena;00000/00000/00000/00000/00000;a4,d4/b5,c2;1;2  # score 0
