"""The challenges room: one account asks another to a game of two (rules, clock, rated or
friendly, seat order); accepted, the game is made with both seats taken; declined, withdrawn
or left unanswered for a day, it is gone."""
