"""The social room: accounts following and blocking one another, who of those followed is
online and what they play, and reports of chat lines and players to the moderators."""
