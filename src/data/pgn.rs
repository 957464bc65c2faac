//! Games in PGN, as fastchess, cutechess-cli and OpenBench's data
//! generation write them, read into [`Game`]s: the result from the
//! `Result` tag, and each move's score from the comment after it.
//!
//! A score comment begins with the score in pawns from the side that moved,
//! then the depth: `{+0.31/12 0.105s}`, `{-1.20/9 0.004s, n=995, sd=12}`,
//! or a mate, `{+M5/9 …}` (the mover mates in 5) and `{-M5/9 …}` (it is
//! mated). Moves without one (`{book}`, or none) lead up to the first
//! scored move, whose position starts the game; a game ends at the first
//! unscored move after that. Games without a decided `Result` (`*`) are
//! left out.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::games::Game;
use crate::score::MATE;

/// A score comment's value in centipawns from the mover's side, if the
/// comment is one.
fn comment_score(comment: &str) -> Option<i32> {
    let first = comment.split_whitespace().next()?;
    let (score, depth) = first.split_once('/')?;
    depth.trim_end_matches(',').parse::<u32>().ok()?;
    let (sign, magnitude) = match score.as_bytes().first()? {
        b'-' => (-1, &score[1..]),
        b'+' => (1, &score[1..]),
        _ => (1, score),
    };
    if let Some(moves) = magnitude.strip_prefix('M') {
        let moves: i32 = moves.parse().ok()?;
        // Mate in n moves is 2n - 1 plies for the side that mates.
        let plies = (2 * moves - 1).clamp(1, 255);
        return Some(if sign > 0 {
            MATE - plies
        } else {
            -(MATE - plies - 1)
        });
    }
    let pawns: f64 = magnitude.parse().ok()?;
    pawns
        .is_finite()
        .then(|| sign * (pawns * 100.0).round().min(f64::from(MATE)) as i32)
}

/// A token of movetext.
enum Token<'a> {
    Tag(&'a str),
    Move(&'a str),
    Comment(&'a str),
    /// The result at the end of the movetext (the tag is what counts).
    End,
}

/// Splits PGN text into tokens: tags, moves, comments and results;
/// move numbers, NAGs, variations and `;` comments are dropped.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        let (token, next) = match c {
            '[' if depth == 0 => {
                let end = rest.find(']').unwrap_or(rest.len() - 1);
                (Some(Token::Tag(&rest[1..end])), end + 1)
            }
            '{' => {
                let end = rest.find('}').unwrap_or(rest.len() - 1);
                let t = (depth == 0).then(|| Token::Comment(&rest[1..end]));
                (t, end + 1)
            }
            ';' => (None, rest.find('\n').unwrap_or(rest.len())),
            '(' => {
                depth += 1;
                (None, 1)
            }
            ')' => {
                depth = depth.saturating_sub(1);
                (None, 1)
            }
            c if c.is_whitespace() => (None, c.len_utf8()),
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || "{}()[];".contains(c))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                let t = if depth > 0 {
                    None
                } else {
                    match word {
                        "1-0" | "0-1" | "1/2-1/2" | "*" => Some(Token::End),
                        w if w.starts_with('$') => None,
                        w => {
                            // "12." or "12..." or "12...e5".
                            let w = w.trim_start_matches(|c: char| c.is_ascii_digit());
                            let w = w.trim_start_matches('.');
                            (!w.is_empty()).then_some(Token::Move(w))
                        }
                    }
                };
                (t, end.max(c.len_utf8()))
            }
        };
        out.extend(token);
        rest = &rest[next..];
    }
    out
}

/// One game being read.
struct Reading {
    pos: Chess,
    mode: CastlingMode,
    result: Option<u8>,
    game: Option<Game>,
    /// The move just played and the position before it, until its comment
    /// (if any) is read.
    pending: Option<(Chess, Move)>,
    /// The game ended (an unscored move after scored ones, or a bad move).
    ended: bool,
}

impl Reading {
    fn new() -> Reading {
        Reading {
            pos: Chess::default(),
            mode: CastlingMode::Standard,
            result: None,
            game: None,
            pending: None,
            ended: false,
        }
    }

    /// The move before settles: with `score` (mover's side) it joins the
    /// game; without one it ends a game already begun.
    fn settle(&mut self, score: Option<i32>) {
        let Some((before, m)) = self.pending.take() else {
            return;
        };
        if self.ended {
            return;
        }
        match (score, &mut self.game) {
            (Some(s), game) => {
                let white = if before.turn() == Color::White { s } else { -s };
                let white = white.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
                game.get_or_insert_with(|| Game {
                    start: before,
                    result: 1,
                    moves: Vec::new(),
                })
                .moves
                .push((m, white));
            }
            (None, Some(_)) => self.ended = true,
            (None, None) => {}
        }
    }

    fn finish(mut self, games: &mut Vec<Game>) {
        self.settle(None);
        if let (Some(mut game), Some(result)) = (self.game, self.result) {
            game.result = result;
            games.push(game);
        }
    }
}

/// The games of PGN `text` that have a result and scored moves, and what
/// was wrong with the games or moves passed over.
pub fn read(text: &str) -> (Vec<Game>, Vec<String>) {
    let mut games = Vec::new();
    let mut problems = Vec::new();
    let mut reading = Reading::new();
    let mut in_movetext = false;
    for token in tokens(text) {
        match token {
            Token::Tag(tag) => {
                if in_movetext {
                    std::mem::replace(&mut reading, Reading::new()).finish(&mut games);
                    in_movetext = false;
                }
                let (name, value) = tag.split_once(' ').unwrap_or((tag, ""));
                let value = value.trim().trim_matches('"');
                match name {
                    "Variant" if value.contains("960") => reading.mode = CastlingMode::Chess960,
                    "FEN" => {
                        let pos = value
                            .parse::<Fen>()
                            .map_err(|e| e.to_string())
                            .and_then(|f| f.into_position(reading.mode).map_err(|e| e.to_string()));
                        match pos {
                            Ok(p) => reading.pos = p,
                            Err(e) => {
                                problems.push(format!("FEN '{value}': {e}"));
                                reading.ended = true;
                            }
                        }
                    }
                    "Result" => {
                        reading.result = match value {
                            "1-0" => Some(2),
                            "0-1" => Some(0),
                            "1/2-1/2" => Some(1),
                            _ => None,
                        };
                    }
                    _ => {}
                }
            }
            Token::Move(san) => {
                in_movetext = true;
                reading.settle(None);
                if reading.ended {
                    continue;
                }
                let played = san
                    .trim_end_matches(['!', '?'])
                    .parse::<San>()
                    .ok()
                    .and_then(|s| s.to_move(&reading.pos).ok());
                if let Some(m) = played {
                    let before = reading.pos.clone();
                    reading.pos.play_unchecked(m);
                    reading.pending = Some((before, m));
                } else {
                    problems.push(format!("'{san}' is not a legal move here"));
                    reading.ended = true;
                }
            }
            Token::Comment(c) => reading.settle(comment_score(c)),
            Token::End => {
                in_movetext = true;
            }
        }
    }
    reading.finish(&mut games);
    (games, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_comments_of_the_managers_are_read() {
        assert_eq!(comment_score("+0.31/12 0.105s"), Some(31));
        assert_eq!(comment_score("-1.20/9 0.004s, n=995, sd=12"), Some(-120));
        assert_eq!(comment_score("0.00/1 0s"), Some(0));
        assert_eq!(comment_score("+M5/9 0.1s"), Some(MATE - 9));
        assert_eq!(comment_score("-M1/3"), Some(-(MATE - 2)));
        assert_eq!(comment_score("book"), None);
        assert_eq!(comment_score("White mates"), None);
        assert_eq!(comment_score("+0.31"), None);
    }

    #[test]
    fn book_moves_lead_to_the_start_and_an_unscored_move_ends_the_game() {
        let pgn = "[Result \"1/2-1/2\"]\n\n1. e4 {book} e5 {book} 2. Nf3 {+0.25/10 0.1s} Nc6 \
                   {-0.20/9 0.1s} 3. Bb5 ; a remark\n{+0.30/9} (3. Bc4 {+1/1}) a6 $2 4. Ba4 \
                   1/2-1/2\n\n[Result \"*\"]\n\n1. d4 {+0.1/1} *\n";
        let (games, problems) = read(pgn);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.result, 1);
        assert_eq!(
            g.start.board().to_string(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
        );
        // White's side: +25, then Black's -0.20 is +20 for White, then +30.
        let scores: Vec<i16> = g.moves.iter().map(|(_, s)| *s).collect();
        assert_eq!(scores, [25, 20, 30]);
    }
}
