//! The synthetic people every lab can populate its world with: the streets ([`roads`]), places
//! (home, work, others) and the routines that move them between those places along the streets
//! over weeks ([`mobility`]), and a city of
//! thousands of residents at one moment of the day ([`city`]). What a lab measures along the way
//! (the signal map's radio, say) is the lab's own.

pub mod city;
pub mod mobility;
pub mod people;
pub mod roads;
