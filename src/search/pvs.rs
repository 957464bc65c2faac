//! The principal variation search (NegaScout) and quiescence search.

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::{Move, MoveList, Position};

use super::Searcher;
use super::ordering::{MovePicker, is_tactical};
use super::params::STOP_CHECK_INTERVAL;
use super::see::see_ge;
use crate::board::Board;
use crate::eval::evaluate;
use crate::score::{DRAW, MATE, MAX_PLY, from_tt, to_tt};
use crate::tt::{Bound, PackedMove};

impl Searcher {
    /// Fail-soft negamax PVS: returns the score of `board` from the side to
    /// move, searched `depth` plies deep within the window (`alpha`, `beta`).
    pub(super) fn search(
        &mut self,
        board: &Board,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        let in_check = board.in_check();
        self.pv[ply].clear();

        // 1. Check extension: never stand pat in check, and see the escape.
        if in_check {
            depth += 1;
        }
        // 2. At the horizon, settle the captures before trusting the score.
        if depth <= 0 {
            return self.qsearch(board, alpha, beta, ply);
        }

        // 3. Abort check: the flag, or the node budget.
        self.nodes += 1;
        if self.should_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);

        let root = ply == 0;
        if !root {
            // 4. Early exits: draws, the edge of the ply stack, and
            // mate-distance pruning (no line here can beat a mate already found).
            if self.is_draw(board) {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return evaluate(board.pos());
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // 5. Transposition table: reuse a result that is deep enough, but
        // never cut at PV nodes, whose line we want to show whole.
        let entry = self.tt.probe(board.key());
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.mv);
        if let Some(e) = entry
            && !pv_node
            && e.depth >= depth
        {
            let score = from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }

        // 6. Static evaluation, reused from the table when it has one.
        let eval = if in_check {
            -MATE
        } else {
            entry.map_or_else(|| evaluate(board.pos()), |e| e.eval)
        };

        // 7. Move loop: best-first ordering; the first move gets the full
        // window, later ones a null window that only proves they are worse,
        // and are searched again with the full window when they are not.
        let moves = if root {
            self.root_moves.iter().copied().collect()
        } else {
            board.pos().legal_moves()
        };
        let picker = MovePicker::new(board, moves, tt_move, &self.history, ply);
        let original_alpha = alpha;
        let mut best_score = -MATE - 1;
        let mut best_move = None;
        let mut quiets_tried = MoveList::new();
        let mut searched = 0;

        for m in picker {
            let child = board.play(m);
            self.keys.push(child.key());
            let score = if searched == 0 {
                -self.search(&child, -beta, -alpha, depth - 1, ply + 1, pv_node)
            } else {
                let mut s = -self.search(&child, -alpha - 1, -alpha, depth - 1, ply + 1, false);
                if s > alpha && s < beta && pv_node {
                    s = -self.search(&child, -beta, -alpha, depth - 1, ply + 1, true);
                }
                s
            };
            self.keys.pop();
            searched += 1;
            if self.stopped {
                return DRAW;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        // 9a. A quiet move that refutes: remember it.
                        if !is_tactical(m) {
                            self.history
                                .on_cutoff(board.turn(), ply, depth, m, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if !is_tactical(m) {
                quiets_tried.push(m);
            }
        }

        // 8. No legal move: checkmate or stalemate.
        if searched == 0 {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }

        // 9b. Store what was learnt.
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_move = best_move.map_or(tt_move, PackedMove::new);
        self.tt.store(
            board.key(),
            stored_move,
            to_tt(best_score, ply),
            eval,
            depth,
            bound,
        );
        best_score
    }

    /// Quiescence: only captures and promotions (all moves when in check),
    /// with the static evaluation as a floor the side to move can stand on.
    fn qsearch(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.should_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return evaluate(board.pos());
        }
        if board.pos().is_insufficient_material() {
            return DRAW;
        }

        let entry = self.tt.probe(board.key());
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.mv);
        if let Some(e) = entry {
            let score = from_tt(e.score, ply);
            let usable = match e.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if usable {
                return score;
            }
        }

        let in_check = board.in_check();
        let eval = if in_check {
            -MATE
        } else {
            entry.map_or_else(|| evaluate(board.pos()), |e| e.eval)
        };
        // Stand pat: the side to move need not capture.
        let mut best_score = eval;
        if !in_check {
            if eval >= beta {
                return eval;
            }
            alpha = alpha.max(eval);
        }

        let moves = board.pos().legal_moves();
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let picker = if in_check {
            MovePicker::new(board, moves, tt_move, &self.history, ply)
        } else {
            MovePicker::tactical(moves, tt_move)
        };
        let mut best_move = None;
        for m in picker {
            // Captures that lose material cannot raise a stand-pat score.
            if !in_check && !see_ge(board.pos(), m, 0) {
                continue;
            }
            let child = board.play(m);
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
        let stored_move = best_move.map_or(tt_move, PackedMove::new);
        self.tt.store(
            board.key(),
            stored_move,
            to_tt(best_score, ply),
            eval,
            0,
            bound,
        );
        best_score
    }

    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.nodes.is_multiple_of(STOP_CHECK_INTERVAL) && self.control.stop.load(Relaxed) {
            self.stopped = true;
        }
        if let Some(limit) = self.limits.nodes
            && self.nodes >= limit
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Draw by the fifty-move rule, insufficient material or repetition
    /// (one repetition within the game or the search path is enough: the
    /// side that could avoid it would have).
    fn is_draw(&self, board: &Board) -> bool {
        let halfmoves = board.halfmoves() as usize;
        if halfmoves >= 100 && !(board.in_check() && board.pos().legal_moves().is_empty()) {
            return true;
        }
        if board.pos().is_insufficient_material() {
            return true;
        }
        let n = self.keys.len();
        let key = board.key();
        let reach = halfmoves.min(n - 1);
        (4..=reach)
            .step_by(2)
            .any(|back| self.keys[n - 1 - back] == key)
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }
}
