//! `brudno epd FILE`: runs a test suite of EPD positions and scores the
//! engine's moves against the suite's `bm` (best moves), `am` (moves to
//! avoid) and STS-style point tables (`c8` points for the moves in `c9`).

use std::time::{Duration, Instant};

use crossbeam_channel::unbounded;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};

use crate::board::Board;
use crate::engine::{Engine, Event, Request};
use crate::search::Limits;
use crate::time::TimeControl;

/// How long each position is searched.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    MoveTime(Duration),
    Nodes(u64),
    Depth(i32),
}

/// One position of a suite with what it expects.
#[derive(Debug)]
struct Problem {
    id: String,
    board: Board,
    best: Vec<Move>,
    avoid: Vec<Move>,
    /// (move, points) from `c9`/`c8`.
    points: Vec<(Move, u32)>,
}

/// The value of operation `op` in the operations part, without quotes.
fn operation<'a>(ops: &'a str, op: &str) -> Option<&'a str> {
    ops.split(';').map(str::trim).find_map(|o| {
        let (name, value) = o.split_once(char::is_whitespace)?;
        (name == op).then(|| value.trim().trim_matches('"'))
    })
}

/// Moves written in SAN (as `bm`/`am` are) or UCI notation (as `c9` is).
fn moves(board: &Board, text: &str) -> Result<Vec<Move>, String> {
    text.split_whitespace()
        .map(|t| {
            let san = t
                .parse::<San>()
                .ok()
                .and_then(|s| s.to_move(board.pos()).ok());
            san.or_else(|| {
                t.parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(board.pos()).ok())
            })
            .ok_or_else(|| format!("'{t}' is not a legal move"))
        })
        .collect()
}

fn parse_line(line: &str, number: usize) -> Result<Problem, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err("fewer than four FEN fields".into());
    }
    let fen = fields[..4].join(" ");
    let (board, _) = Board::from_fen(&fen, CastlingMode::Standard)?;
    let ops = fields[4..].join(" ");
    let best = operation(&ops, "bm").map_or(Ok(Vec::new()), |t| moves(&board, t))?;
    let avoid = operation(&ops, "am").map_or(Ok(Vec::new()), |t| moves(&board, t))?;
    let mut points = Vec::new();
    if let (Some(c9), Some(c8)) = (operation(&ops, "c9"), operation(&ops, "c8")) {
        let ms = moves(&board, c9)?;
        let ps: Vec<u32> = c8
            .split_whitespace()
            .map(|p| {
                p.parse()
                    .map_err(|_| format!("c8 value '{p}' is no number"))
            })
            .collect::<Result<_, _>>()?;
        points = ms.into_iter().zip(ps).collect();
    }
    let id = operation(&ops, "id").map_or_else(|| format!("#{number}"), str::to_string);
    Ok(Problem {
        id,
        board,
        best,
        avoid,
        points,
    })
}

fn request(budget: Budget) -> Request {
    let mut r = Request::default();
    match budget {
        Budget::MoveTime(t) => {
            r.clock = TimeControl {
                movetime: Some(t),
                ..TimeControl::default()
            };
        }
        Budget::Nodes(n) => {
            r.limits = Limits {
                nodes: Some(n),
                ..Limits::default()
            };
        }
        Budget::Depth(d) => {
            r.limits = Limits {
                depth: Some(d),
                ..Limits::default()
            };
        }
    }
    r
}

/// How a suite is run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub budget: Budget,
    pub hash_mb: usize,
    pub threads: usize,
    /// Only this many positions from the top of the file.
    pub first: usize,
}

/// Runs the suite in `text`, printing a line per position and a summary.
/// Returns (solved, scored): positions with `bm`/`am` solved, and the
/// number of such positions.
///
/// # Errors
/// When the engine cannot start.
pub fn run(
    text: &str,
    settings: &Settings,
    out: &mut dyn FnMut(&str),
) -> Result<(usize, usize), String> {
    let (tx, rx) = unbounded();
    let mut engine = Engine::new(settings.hash_mb, tx)?;
    engine.set_threads(settings.threads)?;
    // No GUI stands between the search and the clock here: `--movetime`
    // is searched whole.
    engine.move_overhead = Duration::ZERO;
    let start = Instant::now();
    let (mut solved, mut scored, mut points, mut max_points) = (0, 0, 0, 0);
    let lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(settings.first);
    for (i, line) in lines.enumerate() {
        let problem = match parse_line(line, i + 1) {
            Ok(p) => p,
            Err(e) => {
                out(&format!("{:>4} skipped: {e}", i + 1));
                continue;
            }
        };
        engine.new_game();
        let searched = Instant::now();
        let keys = vec![problem.board.key()];
        engine.go(problem.board.clone(), keys, request(settings.budget));
        let outcome = loop {
            match rx.recv() {
                Ok(Event::Done(o)) => break o,
                Ok(Event::Iteration(_)) => {}
                Err(_) => return Err("the search thread is gone".into()),
            }
        };
        engine.wait();
        let ms = searched.elapsed().as_millis();
        let Some(best) = outcome.best else {
            out(&format!("{:>4} {}: no legal move", i + 1, problem.id));
            continue;
        };
        let san = San::from_move(problem.board.pos(), best).to_string();
        let mut verdict = String::new();
        if !problem.best.is_empty() || !problem.avoid.is_empty() {
            scored += 1;
            let ok = (problem.best.is_empty() || problem.best.contains(&best))
                && !problem.avoid.contains(&best);
            solved += usize::from(ok);
            verdict = if ok { "solved".into() } else { "failed".into() };
        }
        if !problem.points.is_empty() {
            let got = problem
                .points
                .iter()
                .find(|(m, _)| *m == best)
                .map_or(0, |(_, p)| *p);
            let max = problem.points.iter().map(|(_, p)| *p).max().unwrap_or(0);
            points += got;
            max_points += max;
            verdict = format!("{verdict} {got}/{max} points");
        }
        out(&format!(
            "{:>4} {:<12} {san:<7} depth {:>2} score {:>6} nodes {:>10} time {ms:>6} ms {}",
            i + 1,
            problem.id,
            outcome.depth,
            outcome.score,
            outcome.nodes,
            verdict.trim()
        ));
    }
    out(&format!(
        "solved {solved}/{scored}{} in {:.1} s",
        if max_points > 0 {
            format!(", points {points}/{max_points}")
        } else {
            String::new()
        },
        start.elapsed().as_secs_f64()
    ));
    Ok((solved, scored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bm_am_and_point_tables() {
        let p = parse_line(
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; am Qh4; id "WAC.001"; c8 "10 3"; c9 "g3g6 f6d7";"#,
            1,
        )
        .unwrap();
        assert_eq!(p.id, "WAC.001");
        assert_eq!(p.best.len(), 1);
        assert_eq!(p.avoid.len(), 1);
        assert_eq!(p.points.len(), 2);
        assert_eq!(p.points[0].1, 10);
        assert!(parse_line("8/8/8 w - - bm Kg1;", 2).is_err());
        assert!(parse_line("4k3/8/8/8/8/8/8/4K3 w - - bm Qh5;", 3).is_err());
    }

    #[test]
    fn solves_easy_positions_at_fixed_depth() {
        let suite = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"mate\";\n\
                     4k3/8/8/8/8/8/3q4/3RK3 w - - bm Rxd2 Kxd2; id \"queen\";\n\
                     4k3/8/8/8/8/8/3q4/3RK3 w - - am Kf1; id \"avoid\";\n";
        let mut settings = Settings {
            budget: Budget::Depth(4),
            hash_mb: 4,
            threads: 1,
            first: usize::MAX,
        };
        let (solved, scored) = run(suite, &settings, &mut |_| {}).unwrap();
        assert_eq!((solved, scored), (3, 3));
        settings.first = 2;
        assert_eq!(run(suite, &settings, &mut |_| {}).unwrap(), (2, 2));
    }
}
