# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair
# gods all, 3 seats, 30 openings, distinct under the board's 8 symmetries
# engine santorini_engines.alphabeta: every placement and 0 more turns drawn among those within 20 of the best (first placement of two seats scored at depth 2, others at depth 1)
# balance: the seats' static scores differ by at most 30
# made by: santorini openings --gods all --seats 3 --count 30 --seed 1 --plies 0 --depth 2 --bound 30 --margin 20
hephaestus/artemis/demeter;00000/00000/00000/00000/00000;b3,d5/c4,e3/c1,d4;1;2  # spread 8
pan/demeter/hephaestus;00000/00000/00000/00000/00000;a4,c4/b3,d3/a3,c2;1;2  # spread 22
minotaur/atlas/hephaestus;00000/00000/00000/00000/00000;a3,d4/a4,b2/d2,d5;1;2  # spread 16
athena/apollo/atlas;00000/00000/00000/00000/00000;b5,c3/b2,d1/b4,d2;1;2  # spread 24
athena/demeter/pan;00000/00000/00000/00000/00000;b4,c4/c2,d3/b2,d4;1;2  # spread 16
pan/athena/atlas;00000/00000/00000/00000/00000;b5,c3/a4,c2/d2,d3;1;2  # spread 22
pan/demeter/hephaestus;00000/00000/00000/00000/00000;b3,e4/a3,d2/b4,c3;1;2  # spread 28
atlas/athena/demeter;00000/00000/00000/00000/00000;b3,d5/c1,d3/a2,d2;1;2  # spread 16
hephaestus/athena/pan;00000/00000/00000/00000/00000;b3,e4/b5,d2/b4,c3;1;2  # spread 20
demeter/artemis/athena;00000/00000/00000/00000/00000;a3,c4/d4,e2/c2,e3;1;2  # spread 16
minotaur/apollo/artemis;00000/00000/00000/00000/00000;b4,d5/b1,c3/a4,d4;1;2  # spread 22
demeter/minotaur/atlas;00000/00000/00000/00000/00000;a2,d4/c1,c3/a3,d3;1;2  # spread 22
athena/demeter/hephaestus;00000/00000/00000/00000/00000;b3,d4/a4,b2/c3,e4;1;2  # spread 22
hephaestus/artemis/minotaur;00000/00000/00000/00000/00000;b3,e4/a2,b4/b2,e3;1;2  # spread 8
artemis/demeter/hephaestus;00000/00000/00000/00000/00000;a4,c4/d3,d5/c5,d2;1;2  # spread 8
athena/apollo/atlas;00000/00000/00000/00000/00000;b4,d5/c3,e3/d3,d4;1;2  # spread 10
artemis/athena/pan;00000/00000/00000/00000/00000;b4,c4/b5,d3/c3,e3;1;2  # spread 22
pan/atlas/minotaur;00000/00000/00000/00000/00000;a2,d4/c3,d5/a4,b2;1;2  # spread 14
minotaur/hephaestus/demeter;00000/00000/00000/00000/00000;b3,e4/c3,c5/c2,e3;1;2  # spread 22
minotaur/pan/athena;00000/00000/00000/00000/00000;a2,d4/c3,d5/a4,d3;1;2  # spread 14
minotaur/hephaestus/demeter;00000/00000/00000/00000/00000;b3,d4/c2,c4/c5,d2;1;2  # spread 30
demeter/pan/artemis;00000/00000/00000/00000/00000;b4,d5/a4,c2/a3,c4;1;2  # spread 16
athena/hephaestus/artemis;00000/00000/00000/00000/00000;b3,e4/a3,c4/b2,b5;1;2  # spread 8
demeter/atlas/athena;00000/00000/00000/00000/00000;b5,c3/b3,c1/c2,c5;1;2  # spread 22
pan/atlas/apollo;00000/00000/00000/00000/00000;b3,e4/a4,b2/c3,d1;1;2  # spread 22
apollo/demeter/hephaestus;00000/00000/00000/00000/00000;b3,e4/a3,c4/b1,b4;1;2  # spread 8
minotaur/atlas/artemis;00000/00000/00000/00000/00000;a4,d4/b3,d3/b4,e2;1;2  # spread 30
minotaur/athena/artemis;00000/00000/00000/00000/00000;b3,d5/c4,e3/d2,e4;1;2  # spread 8
athena/minotaur/artemis;00000/00000/00000/00000/00000;a4,c4/d1,d4/c2,d2;1;2  # spread 30
minotaur/pan/atlas;00000/00000/00000/00000/00000;b3,e4/c2,c5/c3,c4;1;2  # spread 28
