//! Quiescence search: below the horizon, only the captures and
//! promotions that can change the material balance (every move when in
//! check), so the main search never trusts the evaluation of a position
//! in the middle of an exchange.

use shakmaty::Position;

use super::Searcher;
use super::history::{Context, PieceTo, pawn_slot};
use super::node::{bound_allows, sharpen};
use super::ordering::MovePicker;
use super::see::see_ge;
use crate::board::Board;
use crate::movegen::tactical_moves;
use crate::score::{DRAW, MATE, MAX_PLY, from_tt};
use crate::tt::{Bound, PackedMove};

impl Searcher {
    /// Quiescence: only captures and promotions (all moves when in check),
    /// with the static evaluation as a floor the side to move can stand on.
    pub(super) fn qsearch(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        self.stats.qnodes += 1;
        if self.should_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluator.evaluate(board, ply);
        }
        if board.pos().is_insufficient_material() {
            return DRAW;
        }

        let entry = self.probe(board);
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.mv);
        if let Some(e) = entry
            && bound_allows(e.bound, from_tt(e.score, ply), alpha, beta)
        {
            return from_tt(e.score, ply);
        }

        let in_check = board.in_check();
        let (raw_eval, eval) = self.static_eval(board, entry, in_check, ply);
        // Stand pat: the side to move need not capture. A table result
        // beyond the evaluation is a truer floor than the evaluation.
        let stand_pat = sharpen(entry, eval, in_check, ply);
        let mut best_score = stand_pat;
        if !in_check {
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
        }

        // Out of check only captures and promotions are searched, so only
        // they are generated.
        let mut moves = if in_check {
            board.pos().legal_moves()
        } else {
            tactical_moves(board.pos())
        };
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut picker = if in_check {
            MovePicker::new(&mut moves, tt_move)
        } else {
            MovePicker::tactical(&mut moves, tt_move, &self.history, board.turn())
        };
        // Evasions are ordered without continuation history (the
        // quiescence search records only the move into each node, for
        // correction history), but with this position's pawn-history
        // slot. Captures out of check are scored by victim and capture
        // history and never read the context.
        let ctx = Context {
            pawns: if in_check { pawn_slot(board) } else { 0 },
            ..Context::default()
        };
        let mut best_move = None;
        let mut searched = 0;
        while let Some(m) = picker.next_move(board, &self.history, ply, &ctx) {
            // Captures that lose material cannot raise a stand-pat score.
            if !in_check && !see_ge(board.pos(), m, 0) {
                continue;
            }
            searched += 1;
            let child = self.play_prefetched(board, m, ply);
            // The move in, for the child's evaluation correction.
            self.context[ply + 1] = Context {
                prev: Some(PieceTo::new(board.turn(), m)),
                ..Context::default()
            };
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        self.stats.qcut_nodes += 1;
                        self.stats.qfirst_move_cuts += u64::from(searched == 1);
                        break;
                    }
                }
            }
        }

        let bound = if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        self.store(
            board, ply, best_move, tt_move, best_score, raw_eval, 0, bound,
        );
        best_score
    }
}
