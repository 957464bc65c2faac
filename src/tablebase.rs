//! Syzygy endgame tablebases (through `shakmaty-syzygy`): WDL probes for
//! the search and DTZ at the root, so won endings are converted within the
//! fifty-move rule and drawn ones are held.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::Relaxed};

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{AmbiguousWdl, Tablebase, Wdl};

use crate::score::{DRAW, MAX_PLY, TB_WIN};

/// The loaded tables, and how the search uses them.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    files: usize,
    /// `SyzygyProbeDepth`: the search probes only at this depth or more.
    probe_depth: AtomicI32,
    /// `Syzygy50MoveRule`: whether wins and losses that the fifty-move
    /// rule spoils count as draws.
    fifty_move_rule: AtomicBool,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tablebases({} files, {} men)",
            self.files,
            self.max_pieces()
        )
    }
}

/// What the tables say about the root moves.
#[derive(Debug, PartialEq, Eq)]
pub struct RootFilter {
    /// The moves worth searching: all that keep the best outcome, or only
    /// the DTZ-best one when the position is decided.
    pub moves: Vec<Move>,
    /// The outcome for the side to move, as a score at the root.
    pub score: i32,
}

impl Tablebases {
    /// Loads every table found in the `:`-separated (`;` on Windows)
    /// directories of `paths`. A directory that cannot be read is named in
    /// the problems and the others are still loaded: one stale entry in a
    /// user's path must not switch off the tables that are there.
    pub fn load(paths: &str) -> (Option<Tablebases>, Vec<String>) {
        let mut tables = Tablebase::new();
        let mut files = 0;
        let mut problems = Vec::new();
        let separator = if cfg!(windows) { ';' } else { ':' };
        for dir in paths
            .split(separator)
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            match tables.add_directory(dir) {
                Ok(0) => problems.push(format!("no Syzygy tables in '{dir}'")),
                Ok(n) => files += n,
                Err(e) => problems.push(format!("cannot read tablebase directory '{dir}': {e}")),
            }
        }
        if files == 0 {
            problems.push(format!("no Syzygy tables found in '{paths}'"));
            return (None, problems);
        }
        let tables = Tablebases {
            tables,
            files,
            probe_depth: AtomicI32::new(1),
            fifty_move_rule: AtomicBool::new(true),
        };
        (Some(tables), problems)
    }

    /// Sets `SyzygyProbeDepth` and `Syzygy50MoveRule`.
    pub fn set_rules(&self, probe_depth: i32, fifty_move_rule: bool) {
        self.probe_depth.store(probe_depth, Relaxed);
        self.fifty_move_rule.store(fifty_move_rule, Relaxed);
    }

    /// The shallowest depth at which the search probes.
    #[inline]
    pub fn probe_depth(&self) -> i32 {
        self.probe_depth.load(Relaxed)
    }

    /// Table files loaded.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Most pieces (kings included) of any table.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// Whether `pos` can be looked up: few enough pieces and no castling
    /// rights (the tables know no castling).
    #[inline]
    pub fn covers(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.max_pieces() && pos.castles().is_empty()
    }

    /// WDL of `pos` for the side to move, valid right after a capture or
    /// pawn move (the search probes only there, where it needs no DTZ).
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        if !self.covers(pos) || pos.halfmoves() != 0 {
            return None;
        }
        self.tables.probe_wdl_after_zeroing(pos).ok()
    }

    /// WDL of `pos` as a search score at `ply`: wins and losses just inside
    /// the mate scores, so shorter ways to them rank first; the fifty-move
    /// rule, unless switched off, turns cursed wins and blessed losses into
    /// draws.
    pub fn score(&self, wdl: Wdl, ply: usize) -> i32 {
        let fifty = self.fifty_move_rule.load(Relaxed);
        match wdl {
            Wdl::Win => TB_WIN - ply as i32,
            Wdl::CursedWin if !fifty => TB_WIN - ply as i32,
            Wdl::Loss => -(TB_WIN - ply as i32),
            Wdl::BlessedLoss if !fifty => -(TB_WIN - ply as i32),
            _ => DRAW,
        }
    }

    /// The root moves to search. In a won or lost position only the move
    /// the DTZ tables recommend (it wins, or resists, for longest within the
    /// fifty-move rule); in a drawn one every move that keeps the draw.
    /// `None` when the position is not in the tables.
    pub fn filter_root(&self, pos: &Chess) -> Option<RootFilter> {
        if !self.covers(pos) {
            return None;
        }
        let wdl = self.tables.probe_wdl(pos).ok().map(|w| match w {
            AmbiguousWdl::Win => Wdl::Win,
            AmbiguousWdl::Loss => Wdl::Loss,
            // Rounded DTZ near the fifty-move limit: the cautious side.
            AmbiguousWdl::MaybeWin | AmbiguousWdl::CursedWin => Wdl::CursedWin,
            AmbiguousWdl::MaybeLoss | AmbiguousWdl::BlessedLoss => Wdl::BlessedLoss,
            AmbiguousWdl::Draw => Wdl::Draw,
        })?;
        let score = self.score(wdl, 0);
        if score != DRAW {
            let (best, _) = self.tables.best_move(pos).ok()??;
            return Some(RootFilter {
                moves: vec![best],
                score,
            });
        }
        let moves = pos
            .legal_moves()
            .into_iter()
            .filter(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                // The child's outcome from the opponent's side: keep the
                // moves after which the opponent cannot win.
                child.is_checkmate()
                    || self
                        .tables
                        .probe_wdl(&child)
                        .is_ok_and(|w| w <= AmbiguousWdl::Draw)
            })
            .collect();
        Some(RootFilter { moves, score })
    }
}

// Table scores, even at the deepest ply, stay above every evaluation.
const _: () = assert!(TB_WIN - MAX_PLY as i32 > 20_000);

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty_syzygy::Dtz;

    fn tables() -> Tablebases {
        Tablebases::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy"))
            .0
            .unwrap()
    }

    use crate::board::test_position as pos;

    #[test]
    fn loads_directories_and_reports_bad_ones() {
        let tb = tables();
        assert_eq!(tb.max_pieces(), 4);
        assert!(tb.files() >= 12);
        assert!(Tablebases::load("/nonexistent/dir").0.is_none());
        assert!(Tablebases::load("").0.is_none());
        let good = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
        let two = format!("{good}:{}", concat!(env!("CARGO_MANIFEST_DIR"), "/epd"));
        let (loaded, problems) = Tablebases::load(&two);
        assert_eq!(loaded.unwrap().files(), tb.files());
        assert_eq!(problems.len(), 1, "{problems:?}");
        // A directory that is not there costs only itself.
        let (loaded, problems) = Tablebases::load(&format!("/nonexistent:{good}"));
        assert_eq!(loaded.map(|t| t.files()), Some(tb.files()));
        assert!(problems[0].contains("/nonexistent"), "{problems:?}");
    }

    #[test]
    fn the_fifty_move_rule_can_be_switched_off() {
        let tb = tables();
        assert_eq!(tb.score(Wdl::CursedWin, 3), DRAW);
        assert_eq!(tb.score(Wdl::BlessedLoss, 3), DRAW);
        tb.set_rules(1, false);
        assert_eq!(tb.score(Wdl::CursedWin, 3), TB_WIN - 3);
        assert_eq!(tb.score(Wdl::BlessedLoss, 3), -(TB_WIN - 3));
        assert_eq!(tb.score(Wdl::Draw, 3), DRAW);
    }

    #[test]
    fn wdl_answers_are_right() {
        let tb = tables();
        // KQ v K: won for the side with the queen, whoever moves.
        assert_eq!(
            tb.probe_wdl(&pos("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")),
            Some(Wdl::Win)
        );
        assert_eq!(
            tb.probe_wdl(&pos("8/8/8/8/8/2k5/8/KQ6 b - - 0 1")),
            Some(Wdl::Loss)
        );
        // K+P v K with the defending king in front of a rook pawn: draw.
        assert_eq!(
            tb.probe_wdl(&pos("k7/8/8/8/8/8/P7/K7 w - - 0 1")),
            Some(Wdl::Draw)
        );
        // K+P v K, pawn on e6 with the king on d7 in front... the king
        // behind its pawn wins.
        assert_eq!(
            tb.probe_wdl(&pos("4k3/8/3KP3/8/8/8/8/8 w - - 0 1")),
            Some(Wdl::Win)
        );
        // R v B: a draw in general.
        assert_eq!(
            tb.probe_wdl(&pos("8/8/3kb3/8/8/8/R3K3/8 w - - 0 1")),
            Some(Wdl::Draw)
        );
        // Not after a zeroing move, five pieces, or castling rights: no probe.
        assert_eq!(tb.probe_wdl(&pos("8/8/8/8/8/2k5/8/KQ6 w - - 3 5")), None);
        assert_eq!(tb.probe_wdl(&pos("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")), None);
    }

    #[test]
    fn dtz_answers_are_right() {
        let tb = tables();
        // Mate in one with the rook: DTZ 1 (the mating move zeroes nothing,
        // but mate ends the game).
        let p = pos("6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
        assert_eq!(tb.tables.probe_dtz(&p).unwrap().ignore_rounding(), Dtz(1));
        // KBN v K takes long: the published maximum DTZ for KBNvK is 66.
        let p = pos("8/8/8/3k4/8/8/8/KBN5 w - - 0 1");
        let dtz = tb.tables.probe_dtz(&p).unwrap().ignore_rounding().0;
        assert!((1..=66).contains(&dtz), "{dtz}");
    }

    #[test]
    fn root_filter_keeps_the_draw_and_picks_one_winning_move() {
        let tb = tables();
        // Rook v bishop, Black to move: every king move that does not walk
        // into a lost corner keeps the draw; the filter drops losing moves
        // and keeps at least one.
        let p = pos("8/8/3kb3/8/8/8/3RK3/8 b - - 0 1");
        let f = tb.filter_root(&p).unwrap();
        assert_eq!(f.score, DRAW);
        assert!(!f.moves.is_empty() && f.moves.len() <= p.legal_moves().len());
        // The bishop on d4 hangs to the rook: moves that leave it there
        // undefended lose and are filtered out.
        let hang = pos("8/8/3k4/8/3b4/8/3RK3/8 b - - 0 1");
        let f = tb.filter_root(&hang).unwrap();
        assert!(!f.moves.is_empty() && f.moves.len() < hang.legal_moves().len());
        let guards = ["c5", "d5", "e5", "c4", "e4", "c3", "d3", "e3"];
        assert!(
            f.moves.iter().all(|m| m.role() == shakmaty::Role::Bishop
                || guards.contains(&m.to().to_string().as_str()))
        );
        // Won: one move, a win score.
        let f = tb
            .filter_root(&pos("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"))
            .unwrap();
        assert_eq!(f.moves.len(), 1);
        assert_eq!(f.score, TB_WIN);
    }
}
