// Reconcilers run on worker threads; the REST clients run on an I/O thread. await() runs one
// coroutine there and blocks until it finishes. Never call it on the I/O thread itself.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

namespace flotilla::controllers {

template <class T>
T await(boost::asio::any_io_executor executor, boost::asio::awaitable<T> task) {
  return boost::asio::co_spawn(executor, std::move(task), boost::asio::use_future).get();
}

}  // namespace flotilla::controllers
