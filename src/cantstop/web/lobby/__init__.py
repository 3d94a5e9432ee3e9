"""The lobby: creating games and rematches, taking seats (`service`), the games a client's
seats are in and the links that move a guest's seat (`seats`), and their routes."""
