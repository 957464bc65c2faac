//! Static exchange evaluation: does a capture sequence on one square win at
//! least `threshold` for the side that starts it? Used to order captures
//! and to drop losing ones in quiescence.

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

use super::params::SEE_VALUE;

#[inline]
fn value(role: Role) -> i32 {
    SEE_VALUE[role as usize - 1]
}

/// Material the move wins at once: the victim plus any promotion gain.
#[inline]
pub fn immediate_gain(m: Move) -> i32 {
    let victim = m.capture().map_or(0, value);
    let promo = m.promotion().map_or(0, |r| value(r) - value(Role::Pawn));
    victim + promo
}

fn attackers_to(pos: &Chess, sq: Square, occupied: Bitboard) -> Bitboard {
    let board = pos.board();
    board.attacks_to(sq, Color::White, occupied) | board.attacks_to(sq, Color::Black, occupied)
}

/// Whether the exchange that `m` starts gains at least `threshold`
/// centipawns, with both sides free to stop capturing when it suits them.
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let Some(from) = m.from() else {
        return 0 >= threshold;
    };
    if m.is_castle() {
        return 0 >= threshold;
    }
    let to = m.to();

    // Best case for us: the victim is won and nothing is lost.
    let mut balance = immediate_gain(m) - threshold;
    if balance < 0 {
        return false;
    }
    // Worst case: our piece (or the promoted one) is lost for nothing more.
    let mut victim = m.promotion().unwrap_or(m.role());
    balance -= value(victim);
    if balance >= 0 {
        return true;
    }

    let board = pos.board();
    let mut occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
    if m.is_en_passant() {
        occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
    }
    let diagonal = board.bishops() | board.queens();
    let straight = board.rooks() | board.queens();
    let mut attackers = attackers_to(pos, to, occupied) & occupied;
    let mut side = !pos.turn();

    loop {
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        // The least valuable attacker recaptures.
        let (role, sq) = Role::ALL
            .into_iter()
            .find_map(|r| (ours & board.by_role(r)).first().map(|sq| (r, sq)))
            .expect("an attacker exists");
        occupied ^= Bitboard::from(sq);
        // Removing it may uncover sliders behind it.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
        attackers &= occupied;
        side = !side;
        // Negamax the balance: the side that just recaptured now risks `role`.
        balance = -balance - 1 - value(role);
        victim = role;
        if balance >= 0 {
            // A king may not recapture onto a square still defended.
            if victim == Role::King && (attackers & board.by_color(side)).any() {
                side = !side;
            }
            break;
        }
    }
    // The side to move last loses the exchange.
    side != pos.turn()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn check(fen: &str, uci: &str, gain: i32) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert!(see_ge(&pos, m, gain), "{fen} {uci} should gain {gain}");
        assert!(
            !see_ge(&pos, m, gain + 1),
            "{fen} {uci} should not gain {}",
            gain + 1
        );
    }

    #[test]
    fn undefended_pawn_is_won() {
        check(
            "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1",
            "e1e5",
            100,
        );
    }

    #[test]
    fn defended_pawn_costs_the_rook() {
        check(
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "d3e5",
            -220,
        );
    }

    #[test]
    fn quiet_move_to_attacked_square_loses_the_piece() {
        check("4k3/8/8/4p3/8/8/8/3RK3 w - - 0 1", "d1d4", -500);
    }

    #[test]
    fn xray_recapture_is_seen() {
        // Rook takes a pawn guarded by a rook; our second rook behind backs it up.
        check("3r2k1/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100);
    }

    #[test]
    fn en_passant_and_promotion() {
        check("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100);
        check("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 850);
    }
}
