// The one translation unit that compiles Boost.Asio, Asio's SSL support and Boost.Beast
// (BOOST_ASIO_SEPARATE_COMPILATION / BOOST_BEAST_SEPARATE_COMPILATION are set on flotilla_net and
// propagate to everything that links it). Every other file only sees declarations, which keeps
// rebuilds on 2 cores fast.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
