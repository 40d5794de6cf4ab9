"""One module per page (or two pages of one concept), each drawing its page in a plain function; every
page is listed, with its address, in `routes` (`gui.ui.pages.routes.pages`)."""
