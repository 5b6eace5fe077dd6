# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods artemis/minotaur, 2 seats, 10 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods artemis/minotaur --seats 2 --count 10 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
artemis/minotaur;00000/00000/00000/00000/00000;c3,c4/b1,d3;1;2  # score 9
artemis/minotaur;00000/00000/00000/00000/00000;b4,c4/b3,c3;1;2  # score -26
artemis/minotaur;00000/00000/00000/00000/00000;a3,c4/c3,d4;1;2  # score -20
artemis/minotaur;00000/00000/00000/00000/00000;a2,d4/c2,e2;1;2  # score 8
artemis/minotaur;00000/00000/00000/00000/00000;b3,d5/b4,c3;1;2  # score -11
artemis/minotaur;00000/00000/00000/00000/00000;a3,d4/c2,e4;1;2  # score 3
artemis/minotaur;00000/00000/00000/00000/00000;b3,c4/b4,e2;1;2  # score 2
artemis/minotaur;00000/00000/00000/00000/00000;c3,c4/a3,c2;1;2  # score 0
artemis/minotaur;00000/00000/00000/00000/00000;b3,d4/b4,e4;1;2  # score 2
artemis/minotaur;00000/00000/00000/00000/00000;b3,d5/b2,c4;1;2  # score -11
