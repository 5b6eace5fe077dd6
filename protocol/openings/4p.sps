# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods all, 4 seats, 30 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: |alphabeta value at depth 2| <= 30 for the side to move
# made by: santorini openings --gods all --seats 4 --count 30 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
artemis/pan/atlas/apollo;00000/00000/00000/00000/00000;a3,c4/c1,d3;3;1  # score -6
athena/atlas/pan/hephaestus;00000/00000/00000/00000/00000;a4,d4/c4,d2;3;1  # score -2
athena/demeter/pan/artemis;00000/00000/00000/00000/00000;a3,d4/b5,c3;3;1  # score -3
hephaestus/artemis/demeter/atlas;00000/00000/00000/00000/00000;b4,d5/c4,e3;3;1  # score 10
artemis/demeter/hephaestus/atlas;00000/00000/00000/00000/00000;b3,e4/a2,b4;3;1  # score 0
apollo/minotaur/athena/artemis;00000/00000/00000/00000/00000;a4,c4/b3,d5;3;1  # score -8
artemis/hephaestus/athena/pan;00000/00000/00000/00000/00000;a3,d3/b2,d5;3;1  # score 0
atlas/athena/apollo/hephaestus;00000/00000/00000/00000/00000;a3,c4/c1,d4;3;1  # score -4
minotaur/atlas/demeter/apollo;00000/00000/00000/00000/00000;a4,c4/b3,d4;3;1  # score -18
artemis/pan/demeter/atlas;00000/00000/00000/00000/00000;b3,d4/a2,d2;3;1  # score 19
pan/hephaestus/minotaur/atlas;00000/00000/00000/00000/00000;b5,c3/b2,d5;3;1  # score 11
atlas/artemis/minotaur/hephaestus;00000/00000/00000/00000/00000;b3,e4/b1,c4;3;1  # score 0
pan/minotaur/apollo/hephaestus;00000/00000/00000/00000/00000;b3,d5/c4,d3;3;1  # score 0
apollo/artemis/pan/demeter;00000/00000/00000/00000/00000;b3,e4/a2,b4;3;1  # score -10
artemis/minotaur/apollo/hephaestus;00000/00000/00000/00000/00000;a3,c4/a4,c2;3;1  # score 0
minotaur/hephaestus/demeter/atlas;00000/00000/00000/00000/00000;a3,c4/d2,d4;3;1  # score 8
artemis/pan/hephaestus/atlas;00000/00000/00000/00000/00000;a3,d4/b2,d5;3;1  # score 2
athena/hephaestus/minotaur/artemis;00000/00000/00000/00000/00000;a3,d4/b3,d5;3;1  # score 0
minotaur/pan/athena/apollo;00000/00000/00000/00000/00000;b5,c3/b2,e4;3;1  # score 2
artemis/hephaestus/apollo/pan;00000/00000/00000/00000/00000;a2,d4/b4,d5;3;1  # score -2
artemis/minotaur/athena/demeter;00000/00000/00000/00000/00000;a4,d4/b3,e4;3;1  # score -10
apollo/minotaur/artemis/demeter;00000/00000/00000/00000/00000;a2,d4/b5,c3;3;1  # score -8
apollo/hephaestus/artemis/atlas;00000/00000/00000/00000/00000;b4,c3/c4,d3;3;1  # score 0
atlas/pan/artemis/athena;00000/00000/00000/00000/00000;a3,c4/d2,d3;3;1  # score -1
pan/hephaestus/atlas/artemis;00000/00000/00000/00000/00000;b3,c4/b4,e3;3;1  # score 0
apollo/artemis/minotaur/hephaestus;00000/00000/00000/00000/00000;a4,c4/b2,e3;3;1  # score -8
demeter/minotaur/hephaestus/artemis;00000/00000/00000/00000/00000;a3,d4/b3,d3;3;1  # score 0
demeter/hephaestus/pan/apollo;00000/00000/00000/00000/00000;b5,c3/b3,e4;3;1  # score -1
apollo/artemis/hephaestus/pan;00000/00000/00000/00000/00000;b5,c3/a3,c4;3;1  # score -1
atlas/minotaur/demeter/hephaestus;00000/00000/00000/00000/00000;a4,c4/a2,b4;3;1  # score -2
