//! Upcoming repetitions: can the side to move repeat a position of the
//! game or of the search path with one reversible move?
//!
//! A position that recurs is a draw (see `is_draw` in `node`), so a side
//! that can make it recur at once is sure of at least a draw. Finding
//! that out by playing every move would cost a move generation; instead
//! the key of the current position is compared with each earlier one with
//! the other side to move (the fifty-move counter bounds how far back a
//! recurrence can lie). Their difference is the key of one move (a piece,
//! its two squares and the turn) exactly when one move of one piece turns
//! one position into the other. The keys of every such move of a knight,
//! bishop, rook, queen or king (pawns never move back) are kept in a
//! cuckoo hash table (Pagh and Rodler's scheme, as Marcel van Kervinck
//! proposed for this test), so each earlier position costs one or two
//! look-ups.

use std::sync::LazyLock;

use shakmaty::{Bitboard, Color, Piece, Role, Square, attacks};

use crate::board::{piece_key, turn_key};

/// Slots of the table: a power of two above twice the 3,668 moves.
const SLOTS: usize = 8192;

/// A reversible move as the table keeps it: the key of the move (both
/// squares of the piece and the turn) and the two squares, lower first.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    squares: Option<(Square, Square)>,
}

/// The two slots a key may occupy.
#[inline]
fn slots(key: u64) -> [usize; 2] {
    [
        (key as usize) & (SLOTS - 1),
        ((key >> 16) as usize) & (SLOTS - 1),
    ]
}

/// Builds the table: every move of a piece between two squares that it
/// attacks from each other on an empty board.
fn build() -> Box<[Entry]> {
    let mut table = vec![Entry::default(); SLOTS].into_boxed_slice();
    for color in Color::ALL {
        // Every role but the pawn, which never moves back.
        for &role in &Role::ALL[1..] {
            let piece = Piece { color, role };
            for a in Square::ALL {
                for b in Square::ALL.into_iter().filter(|&b| b > a) {
                    if !attacks::attacks(a, piece, Bitboard::EMPTY).contains(b) {
                        continue;
                    }
                    let key = piece_key(a, piece) ^ piece_key(b, piece) ^ turn_key();
                    insert(
                        &mut table,
                        Entry {
                            key,
                            squares: Some((a, b)),
                        },
                    );
                }
            }
        }
    }
    table
}

/// Cuckoo insertion: take the first slot, and move whatever held it to
/// its other slot, until an empty slot ends the chain.
fn insert(table: &mut [Entry], mut entry: Entry) {
    let mut slot = slots(entry.key)[0];
    loop {
        std::mem::swap(&mut table[slot], &mut entry);
        if entry.squares.is_none() {
            return;
        }
        let [first, second] = slots(entry.key);
        slot = if slot == first { second } else { first };
    }
}

static TABLE: LazyLock<Box<[Entry]>> = LazyLock::new(build);

/// The squares of the reversible move whose key is `key`, if there is one.
#[inline]
fn lookup(key: u64) -> Option<(Square, Square)> {
    let table = &**TABLE;
    slots(key)
        .into_iter()
        .map(|s| table[s])
        .find(|e| e.key == key)
        .and_then(|e| e.squares)
}

/// Whether `turn`, to move in the position of `board` and `key`, can play
/// one move that leads to the position whose key is `earlier` (with the
/// other side to move):
/// the keys differ by a move of one of its pieces, and the squares
/// between the move's two squares are empty. Such a move is legal,
/// since the position it leads to occurred with the other side to move.
#[inline]
pub fn reaches(board: &shakmaty::Board, turn: Color, key: u64, earlier: u64) -> bool {
    let Some((a, b)) = lookup(key ^ earlier) else {
        return false;
    };
    let occupied = board.occupied();
    if (attacks::between(a, b) & occupied).any() {
        return false;
    }
    // One square holds the piece, the other is where it goes.
    let from = match (occupied.contains(a), occupied.contains(b)) {
        (true, false) => a,
        (false, true) => b,
        _ => return false,
    };
    board.color_at(from) == Some(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, test_position};
    use shakmaty::{Position, uci::UciMove};

    #[test]
    fn the_table_holds_every_reversible_move_once() {
        let filled = TABLE.iter().filter(|e| e.squares.is_some()).count();
        // Known count of such moves (both colours, knight to king).
        assert_eq!(filled, 3668);
        for e in TABLE.iter().filter(|e| e.squares.is_some()) {
            assert_eq!(lookup(e.key), e.squares);
        }
    }

    fn after(fen: &str, moves: &[&str]) -> Vec<Board> {
        let mut boards = vec![Board::new(test_position(fen))];
        for m in moves {
            let last = boards.last().unwrap();
            let m = m.parse::<UciMove>().unwrap().to_move(last.pos()).unwrap();
            boards.push(last.play(m));
        }
        boards
    }

    #[test]
    fn a_knight_that_can_go_back_repeats() {
        // After Nf3 Nf6 Ng1, black can play Ng8 and repeat the start.
        let boards = after(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["g1f3", "g8f6", "f3g1"],
        );
        let now = &boards[3];
        assert!(reaches(
            now.pos().board(),
            Color::Black,
            now.key(),
            boards[0].key()
        ));
        // After 1. Nf3 the start differs by white's knight move, which
        // black, to move, cannot take back.
        let one = &boards[1];
        assert!(!reaches(
            one.pos().board(),
            Color::Black,
            one.key(),
            boards[0].key()
        ));
    }

    /// Whether the side to move in `now` reaches `before` in one move.
    fn goes_back(now: &str, before: &str) -> bool {
        let (now, before) = (
            Board::new(test_position(now)),
            Board::new(test_position(before)),
        );
        reaches(now.pos().board(), now.turn(), now.key(), before.key())
    }

    #[test]
    fn only_the_side_to_move_and_only_a_free_path_repeat() {
        // White's rook on a8 can go back to a1.
        assert!(goes_back(
            "R7/8/7k/8/8/8/8/4K3 w - - 0 1",
            "8/8/7k/8/8/8/8/R3K3 b - - 0 1"
        ));
        // With black to move, the rook's way back is not black's move.
        assert!(!goes_back(
            "R7/8/7k/8/8/8/8/4K3 b - - 0 1",
            "8/8/7k/8/8/8/8/R3K3 w - - 0 1"
        ));
        // A pawn on a5 blocks the way back.
        assert!(!goes_back(
            "R7/8/7k/P7/8/8/8/4K3 w - - 0 1",
            "8/8/7k/P7/8/8/8/R3K3 b - - 0 1"
        ));
        // Two moves apart (the king moved too): no single move repeats.
        assert!(!goes_back(
            "R7/8/7k/8/P7/8/8/4K3 w - - 0 1",
            "8/8/7k/P7/8/8/8/R4K2 b - - 0 1"
        ));
    }
}
